// fuzz_replay TARGET PATH...: runs every file under each PATH (a file or a
// directory, read recursively) through TARGET once. ctest replays the kept
// regressions and seeds this way; a crash, a sanitizer report or a hang is
// the test's failure.
#include "tests/fuzz/fuzz_targets.h"

#include <algorithm>
#include <cstdio>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_replay TARGET PATH...\n");
    return 2;
  }
  dumpsyms::fuzz::Target target = dumpsyms::fuzz::targetNamed(argv[1]);
  if (!target) {
    std::fprintf(stderr, "fuzz_replay: no target named %s\n", argv[1]);
    return 2;
  }
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    if (!llvm::sys::fs::exists(argv[i]))
      continue; // (a target with no regressions kept yet)
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::error_code error;
    for (llvm::sys::fs::recursive_directory_iterator it(argv[i], error), end; it != end && !error;
         it.increment(error))
      if (llvm::sys::fs::is_regular_file(it->path()))
        files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer) {
      std::fprintf(stderr, "fuzz_replay: %s: %s\n", file.c_str(),
                   buffer.getError().message().c_str());
      return 1;
    }
    target(reinterpret_cast<const uint8_t*>((*buffer)->getBufferStart()),
           (*buffer)->getBufferSize());
  }
  // (stderr: a target may send stdout to /dev/null)
  std::fprintf(stderr, "fuzz_replay %s: %zu inputs, no crash\n", argv[1], files.size());
  return 0;
}
