// libFuzzer's entry point for one target, chosen at build time with
// -DFUZZ_TARGET=<function in fuzz_targets.h>.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dumpsyms::fuzz::FUZZ_TARGET(data, size);
}
