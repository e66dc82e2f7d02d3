// ELF core files: parsed from bytes into a process snapshot, every thread
// walked against a store with no symbols (frame pointers and scanning over
// the fuzzed memory), and printed.
#include "core/core_snapshot.h"
#include "tests/fuzz/fuzz_targets.h"
#include "walk_output/walk_printers.h"

namespace dumpsyms::fuzz {

int coreFile(const uint8_t* data, size_t size) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(data), size), "core");
  auto snapshot = parseCoreSnapshot(std::move(buffer), "core");
  if (!snapshot) {
    llvm::consumeError(snapshot.takeError());
    return 0;
  }
  walkAndPrint(std::move(*snapshot));
  return 0;
}

} // namespace dumpsyms::fuzz
