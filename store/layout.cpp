#include "store/layout.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

std::string symbolFileRelativePath(const std::string& debug_file, const std::string& debug_id) {
  llvm::StringRef stem(debug_file);
  if (stem.ends_with_insensitive(".pdb"))
    stem = stem.drop_back(4);
  return debug_file + "/" + debug_id + "/" + stem.str() + ".sym";
}

std::string symbolFilePath(const std::string& store_root, const std::string& debug_file,
                           const std::string& debug_id) {
  llvm::SmallString<256> path(store_root);
  llvm::sys::path::append(path, symbolFileRelativePath(debug_file, debug_id));
  return std::string(path);
}

} // namespace dumpsyms
