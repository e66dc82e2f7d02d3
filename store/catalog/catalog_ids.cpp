#include "store/catalog/catalog_ids.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

std::string catalogIdKey(std::string_view id) {
  std::string key;
  key.reserve(id.size());
  for (char c : id)
    if (c != '-' && c != '{' && c != '}' && c != ' ')
      key.push_back(llvm::toUpper(c));
  return key;
}

bool isHexKey(std::string_view key) {
  return !key.empty() &&
         std::all_of(key.begin(), key.end(), [](char c) { return llvm::isHexDigit(c); });
}

bool isElfModuleOs(std::string_view os) {
  llvm::StringRef name(os.data(), os.size());
  return name.equals_insensitive("linux") || name.equals_insensitive("android");
}

} // namespace dumpsyms
