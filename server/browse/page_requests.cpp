#include "server/browse/page_requests.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

std::string trimmedQuery(std::string_view text) {
  llvm::StringRef trimmed = llvm::StringRef(text.data(), text.size()).trim();
  return trimmed.take_front(200).str();
}

size_t pageNumber(std::string_view text) {
  size_t value = 0;
  if (llvm::StringRef(text.data(), text.size()).getAsInteger(10, value) || value == 0 ||
      value > 1000000)
    return 1;
  return value;
}

LookupAnswer parseLookupAddress(std::string_view text) {
  LookupAnswer answer;
  answer.asked = trimmedQuery(text);
  llvm::StringRef digits = answer.asked;
  if (!digits.consume_front("0x"))
    digits.consume_front("0X");
  uint64_t value = 0;
  if (digits.empty() || digits.size() > 16 || digits.getAsInteger(16, value))
    answer.error = "\"" + answer.asked +
                   "\" is not an offset: give hex digits, like 0x1a2b (relative to the module)";
  else
    answer.address = value;
  return answer;
}

} // namespace dumpsyms
