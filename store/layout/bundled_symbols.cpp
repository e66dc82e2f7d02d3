#include "store/layout/bundled_symbols.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

std::string bundledSymbolStore() {
  std::string executable =
      llvm::sys::fs::getMainExecutable(nullptr, reinterpret_cast<void*>(&bundledSymbolStore));
  if (executable.empty())
    return "";
  // <prefix>/bin/TOOL, or build/TOOL/TOOL: the store is in <dir>/../share.
  llvm::SmallString<256> store(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable)));
  llvm::sys::path::append(store, "share", "dump_syms", "symbols");
  return llvm::sys::fs::is_directory(store) ? std::string(store) : std::string();
}

} // namespace dumpsyms
