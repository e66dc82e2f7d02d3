// Where a symbol file's lookup index lives beside it: "<sym path>.idx".
// Store listings and uploads pass such files over.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

inline std::string symbolIndexPath(const std::string& sym_path) {
  return sym_path + ".idx";
}

inline bool isSymbolIndexPath(const std::string& path) {
  return llvm::StringRef(path).ends_with(".sym.idx");
}

} // namespace dumpsyms
