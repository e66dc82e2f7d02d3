#include "common/limits/bounded_json.h"

#include "common/limits/input_limits.h"

#include <algorithm>

namespace dumpsyms {

size_t jsonNestingDepth(llvm::StringRef text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

llvm::Expected<llvm::json::Value> parseBoundedJson(llvm::StringRef text) {
  if (jsonNestingDepth(text) > limits::kMaxJsonDepth)
    return llvm::createStringError(
        limits::overLimit("the JSON's nesting", limits::kMaxJsonDepth, "levels"));
  return llvm::json::parse(text);
}

} // namespace dumpsyms
