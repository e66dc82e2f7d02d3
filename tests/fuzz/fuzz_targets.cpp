#include "tests/fuzz/fuzz_targets.h"

#include "walk/printers/walk_printers.h"
#include "walk/stackwalk/process_walk.h"

#include <cstdio>
#include <cstdlib>
#include <llvm/Support/FileSystem.h>
#include <map>
#include <vector>

namespace dumpsyms::fuzz {

Target targetNamed(const std::string& name) {
  static const std::map<std::string, Target> targets = {
      {"postfix", postfix},
      {"sym_parser", symParser},
      {"crash_text", crashText},
      {"core_file", coreFile},
      {"dump_elf", dumpElf},
      {"dwarf_sections", dwarfSections},
      {"pdb", pdb},
      {"pe", pe},
      {"upload_zip", uploadZip},
      {"upload_checks", uploadChecks},
      {"download_requests", downloadRequests},
      {"store_pages", storePages},
      {"crash_submission", crashSubmission},
      {"http_answers", httpAnswers},
      {"minidump", minidump},
      {"microdump", microdump},
      {"windows_symbols", windowsSymbols},
      {"omap", omap},
      {"symbol_index", symbolIndex},
      {"macho", macho},
  };
  auto found = targets.find(name);
  return found == targets.end() ? nullptr : found->second;
}

} // namespace dumpsyms::fuzz

namespace dumpsyms::fuzz {

std::unique_ptr<llvm::MemoryBuffer> inputBuffer(const uint8_t* data, size_t size,
                                                const char* name) {
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(data), size), name);
}

std::string scratchDirectory(const char* prefix) {
  static std::vector<std::string> made;
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory(prefix, dir))
    return std::string();
  if (made.empty())
    std::atexit([] {
      for (const std::string& path : made)
        (void)llvm::sys::fs::remove_directories(path);
    });
  made.emplace_back(dir);
  return std::string(dir);
}

void walkAndPrint(llvm::Expected<ProcessSnapshot> parsed) {
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return;
  }
  ProcessSnapshot snapshot = std::move(*parsed);
  static const std::string empty_store = scratchDirectory("fuzz-empty-store");
  static std::FILE* sink = std::fopen("/dev/null", "w");
  auto shared = std::make_shared<ProcessSnapshot>(std::move(snapshot));
  for (bool breakpad : {false, true}) {
    WalkOptions options;
    options.breakpad_rules = breakpad;
    // (a copy: walkProcess keeps the snapshot it is given)
    ProcessWalk walk = walkProcess(*shared, {empty_store}, options);
    printWalkText(walk, sink);
    printWalkJson(walk, sink);
    printWalkBreakpad(walk, {}, sink);
    printWalkBreakpadMachine(walk, sink);
    printWalkRustMinidump(walk, sink);
  }
}

} // namespace dumpsyms::fuzz
