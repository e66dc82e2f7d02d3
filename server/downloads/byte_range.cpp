#include "server/downloads/byte_range.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

// Digits only (getAsInteger would take a sign or a radix prefix).
bool parseOffset(llvm::StringRef text, uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != llvm::StringRef::npos)
    return false;
  return !text.getAsInteger(10, out);
}

} // namespace

ByteRange parseByteRange(const std::string& header, uint64_t size) {
  ByteRange whole;
  llvm::StringRef value = llvm::StringRef(header).trim();
  if (!value.consume_front("bytes="))
    return whole;
  value = value.trim();
  if (value.contains(','))
    return whole;
  auto [first_text, last_text] = value.split('-');
  first_text = first_text.trim();
  last_text = last_text.trim();
  if (!value.contains('-'))
    return whole;

  ByteRange range;
  range.kind = ByteRange::Kind::Partial;
  if (first_text.empty()) {
    // "-N": the last N bytes.
    uint64_t suffix = 0;
    if (!parseOffset(last_text, suffix))
      return whole;
    if (suffix == 0 || size == 0)
      return ByteRange{ByteRange::Kind::Unsatisfiable, 0, 0};
    range.length = std::min(suffix, size);
    range.first = size - range.length;
    return range;
  }
  uint64_t first = 0, last = 0;
  if (!parseOffset(first_text, first))
    return whole;
  if (last_text.empty()) {
    last = size == 0 ? 0 : size - 1;
  } else if (!parseOffset(last_text, last) || last < first) {
    return whole; // an invalid range is ignored, as RFC 9110 allows
  }
  if (first >= size)
    return ByteRange{ByteRange::Kind::Unsatisfiable, 0, 0};
  last = std::min(last, size - 1);
  range.first = first;
  range.length = last - first + 1;
  return range;
}

std::string contentRange(const ByteRange& range, uint64_t size) {
  return "bytes " + std::to_string(range.first) + "-" +
         std::to_string(range.first + range.length - 1) + "/" + std::to_string(size);
}

} // namespace dumpsyms
