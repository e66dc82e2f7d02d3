// Crash text: every line parsed as a frame, each backtrace resolved against
// a small store (one module with FUNCs, lines, an inlined call and PUBLICs),
// and lines that are JSON crash reports symbolized whole.
#include "tests/fuzz/fuzz_targets.h"
#include "walk/symbolize/crash_report.h"
#include "walk/symbolize/crash_symbolizer.h"
#include "walk/symbolize/frame_line.h"

#include <cstdio>
#include <fstream>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <vector>

namespace dumpsyms::fuzz {

namespace {

// A store holding libx.so, made once per process.
const std::string& smallStore() {
  static const std::string store = [] {
    std::string dir = scratchDirectory("fuzz-store");
    if (dir.empty())
      return dir;
    std::string module_dir = std::string(dir) + "/libx.so/0123456789ABCDEF0123456789ABCDEF0";
    llvm::sys::fs::create_directories(module_dir);
    std::ofstream(module_dir + "/libx.so.sym")
        << "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libx.so\n"
           "INFO PT_DYNAMIC_OFFSET 2df0\n"
           "FILE 0 x.c\nINLINE_ORIGIN 0 inner\n"
           "FUNC 1000 40 0 outer\nINLINE 0 7 0 0 1010 10\n1000 20 5 0\n1020 20 6 0\n"
           "PUBLIC 2000 0 __restore_rt\nPUBLIC 2100 0 other\n";
    // Printing goes nowhere: the target is the parsing and resolving.
    std::freopen("/dev/null", "w", stdout);
    return std::string(dir);
  }();
  return store;
}

} // namespace

int crashText(const uint8_t* data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char*>(data), size);
  StoreFrameResolver resolver(smallStore(), {});
  CrashSymbolizer symbolizer(resolver);
  std::vector<std::string> lines;
  for (llvm::StringRef rest = text; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    lines.push_back(line.str());
    rest = tail;
  }
  symbolizer.learnLoadAddresses(lines);
  for (const std::string& line : lines) {
    (void)parseFrameLine(line);
    (void)symbolizer.line(line);
    (void)symbolizeReport(line, resolver, /*json=*/true, 3);
    (void)symbolizeReport(line, resolver, /*json=*/false, std::nullopt);
  }
  return 0;
}

} // namespace dumpsyms::fuzz
