// Microdumps: a log read for its first microdump (records, prefixes, the
// context, stack and module lines) into a process snapshot, the crashing
// thread walked with Breakpad's rules and with ours against a store with
// no symbols, and printed in every form.
#include "tests/fuzz/fuzz_targets.h"
#include "walk/microdump/microdump_snapshot.h"

namespace dumpsyms::fuzz {

int microdump(const uint8_t* data, size_t size) {
  walkAndPrint(parseMicrodumpSnapshot(inputBuffer(data, size, "microdump"), "microdump"));
  return 0;
}

} // namespace dumpsyms::fuzz
