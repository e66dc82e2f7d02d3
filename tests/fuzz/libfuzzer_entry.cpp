// libFuzzer's entry point for one target, chosen at build time with
// -DFUZZ_TARGET=<function in fuzz_targets.h> and -DFUZZ_TARGET_NAME="<name>".
#include "tests/fuzz/fuzz_targets.h"

#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

// The target's dictionary, FUZZ_SOURCE_DIR/<name>.dict, when it has one and
// the command line names none: every target gets its tokens, however it is
// started.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-dict=", 6) == 0)
      return 0;
  static std::string dict = std::string("-dict=") + FUZZ_SOURCE_DIR "/" FUZZ_TARGET_NAME ".dict";
  struct stat info;
  if (::stat(dict.c_str() + 6, &info) != 0)
    return 0;
  static std::vector<char*> arguments(*argv, *argv + *argc);
  arguments.push_back(dict.data());
  arguments.push_back(nullptr);
  *argc += 1;
  *argv = arguments.data();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dumpsyms::fuzz::FUZZ_TARGET(data, size);
}
