#include "store/layout.h"

#include <algorithm>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
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

bool isNullDebugId(const std::string& debug_id) {
  return debug_id.size() == 33 && debug_id.find_first_not_of('0') == std::string::npos;
}

std::string moduleRelativePath(const std::string& debug_file, const std::string& debug_id,
                               const std::string& code_file, const std::string& code_id) {
  if (isNullDebugId(debug_id) && !code_file.empty() && !code_id.empty() &&
      code_file.find('/') == std::string::npos && code_id.find('/') == std::string::npos &&
      code_file != "." && code_file != "..")
    return code_file + "/" + code_id + "/" + code_file + ".sym";
  return symbolFileRelativePath(debug_file, debug_id);
}

std::vector<std::string> storedDebugIds(const std::string& store_root,
                                        const std::string& debug_file) {
  llvm::SmallString<256> dir(store_root);
  llvm::sys::path::append(dir, debug_file);
  std::vector<std::string> ids;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end; it != end && !error;
       it.increment(error))
    ids.push_back(llvm::sys::path::filename(it->path()).str());
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::string symbolIndexPath(const std::string& sym_path) {
  return sym_path + ".idx";
}

bool isSymbolIndexPath(const std::string& path) {
  return llvm::StringRef(path).ends_with(".sym.idx");
}

} // namespace dumpsyms
