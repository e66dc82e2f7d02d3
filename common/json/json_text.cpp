#include "common/json/json_text.h"

#include <llvm/Support/raw_ostream.h>

namespace dumpsyms {

std::string jsonText(const llvm::json::Value& value) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << value;
  stream.flush();
  return text;
}

void printJsonLine(std::FILE* out, const llvm::json::Value& value) {
  std::string text = jsonText(value);
  text += '\n';
  std::fwrite(text.data(), 1, text.size(), out);
}

} // namespace dumpsyms
