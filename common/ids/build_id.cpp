#include "common/ids/build_id.h"

#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

std::optional<BuildId> BuildId::parseHex(llvm::StringRef text) {
  if (text.empty() || text.size() % 2 != 0 || !llvm::all_of(text, llvm::isHexDigit))
    return std::nullopt;
  std::vector<uint8_t> bytes;
  bytes.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2)
    bytes.push_back(uint8_t(llvm::hexFromNibbles(text[i], text[i + 1])));
  return BuildId(bytes);
}

std::string BuildId::hex() const {
  return llvm::toHex(bytes_, /*LowerCase=*/true);
}

} // namespace dumpsyms
