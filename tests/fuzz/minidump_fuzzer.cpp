// Minidumps: parsed from bytes into a process snapshot (every stream,
// context and module record), every thread walked with Breakpad's rules
// and with ours against a store with no symbols, and printed in every form.
#include "tests/fuzz/fuzz_targets.h"
#include "walk/minidump/minidump_snapshot.h"

namespace dumpsyms::fuzz {

int minidump(const uint8_t* data, size_t size) {
  walkAndPrint(parseMinidumpSnapshot(inputBuffer(data, size, "minidump"), "minidump"));
  return 0;
}

} // namespace dumpsyms::fuzz
