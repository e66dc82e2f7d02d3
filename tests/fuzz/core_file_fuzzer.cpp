// ELF core files: parsed from bytes, modules found, every thread walked
// against a store with no symbols (frame pointers and scanning over the
// fuzzed memory).
#include "core/core_file.h"
#include "core/core_modules.h"
#include "stackwalk/stack_walker.h"
#include "tests/fuzz/fuzz_targets.h"

#include <llvm/Support/FileSystem.h>

namespace dumpsyms::fuzz {

int coreFile(const uint8_t* data, size_t size) {
  static const std::string empty_store = [] {
    llvm::SmallString<128> dir;
    (void)llvm::sys::fs::createUniqueDirectory("fuzz-empty-store", dir);
    return std::string(dir);
  }();
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(data), size), "core");
  auto core = CoreFile::parse(std::move(buffer), "core");
  if (!core) {
    llvm::consumeError(core.takeError());
    return 0;
  }
  std::vector<CoreModule> modules = findCoreModules(**core);
  StoreModules store(empty_store);
  StackWalker walker(**core, modules, store);
  for (const CoreThread& thread : (*core)->threads())
    (void)walker.walk(thread);
  return 0;
}

} // namespace dumpsyms::fuzz
