// ELF core files: parsed from bytes into a process snapshot, every thread
// walked against a store with no symbols (frame pointers and scanning over
// the fuzzed memory), and printed.
#include "tests/fuzz/fuzz_targets.h"
#include "walk/core/core_snapshot.h"

namespace dumpsyms::fuzz {

int coreFile(const uint8_t* data, size_t size) {
  walkAndPrint(parseCoreSnapshot(inputBuffer(data, size, "core"), "core"));
  return 0;
}

} // namespace dumpsyms::fuzz
