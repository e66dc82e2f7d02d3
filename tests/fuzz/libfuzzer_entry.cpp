// libFuzzer's entry point for one target, chosen at build time with
// -DFUZZ_TARGET_NAME="<name in fuzz_targets.cpp's table>" (tests/fuzz/CMakeLists.txt
// names each target once, for this program and the tests alike).
#include "tests/fuzz/fuzz_targets.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const dumpsyms::fuzz::Target target = [] {
    dumpsyms::fuzz::Target found = dumpsyms::fuzz::targetNamed(FUZZ_TARGET_NAME);
    if (!found) {
      std::fprintf(stderr, "fuzz: no target named %s in fuzz_targets.cpp\n", FUZZ_TARGET_NAME);
      std::abort();
    }
    return found;
  }();
  return target(data, size);
}
