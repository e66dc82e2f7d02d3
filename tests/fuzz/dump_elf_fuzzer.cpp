// A whole dump (ELF, DWARF, CFI, inlined calls, symbols) of the input as a
// file, with -d, then written out; then the file read as `symstore serve`
// reads an uploaded kept file (keptFileIdentity). The file, rewritten for each input, lives
// in $TMPDIR when it is set (run_fuzzer.py points it into the build tree,
// where the file of a process that died stays to be looked at), else in
// memory (/dev/shm when there is one).
#include "dump/flows/dump_module.h"
#include "dump/release/kept_file_identity.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/whole_dump_options.h"

#include <cstdlib>
#include <fstream>
#include <llvm/Support/FileSystem.h>
#include <sstream>
#include <unistd.h>

namespace dumpsyms::fuzz {

namespace {

// The file each input is written to, removed when the process ends.
struct ScratchFile {
  ScratchFile() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string dir = tmpdir && *tmpdir                         ? tmpdir
                      : llvm::sys::fs::is_directory("/dev/shm") ? "/dev/shm"
                                                                : "/tmp";
    path = dir + "/fuzz-dump-" + std::to_string(::getpid()) + ".elf";
  }
  ~ScratchFile() { llvm::sys::fs::remove(path); }
  std::string path;
};

} // namespace

const std::string& scratchPath() {
  static const ScratchFile file;
  return file.path;
}

int dumpBytes(const uint8_t* data, size_t size, const std::string& arch) {
  {
    std::ofstream out(scratchPath(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  Options options = test_support::wholeDumpOptions(scratchPath());
  options.arch = arch;
  Diagnostics diagnostics;
  auto module = dumpModule(options, diagnostics);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  std::ostringstream text;
  writeSymbolFile(*module, writeOptions(options), text);
  return 0;
}

void keptFileIdentityOfScratch() {
  // What `symstore serve` reads of an uploaded kept file: which build it is.
  auto identity = keptFileIdentity(scratchPath(), "fuzz");
  if (!identity)
    llvm::consumeError(identity.takeError());
}

int dumpElf(const uint8_t* data, size_t size) {
  dumpBytes(data, size, "");
  keptFileIdentityOfScratch();
  return 0;
}

} // namespace dumpsyms::fuzz
