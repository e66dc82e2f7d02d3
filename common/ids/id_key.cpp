#include "common/ids/id_key.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

std::string idKey(std::string_view text) {
  std::string key;
  key.reserve(text.size());
  for (char c : text)
    if (c != '-' && c != '{' && c != '}' && c != ' ')
      key.push_back(llvm::toUpper(c));
  return key;
}

bool isHexKey(std::string_view key) {
  return !key.empty() &&
         std::all_of(key.begin(), key.end(), [](char c) { return llvm::isHexDigit(c); });
}

} // namespace dumpsyms
