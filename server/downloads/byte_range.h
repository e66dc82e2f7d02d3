// The Range header of a GET (RFC 9110 section 14): one byte range is
// served as 206; several ranges are answered with the whole file (a server
// may ignore Range, and multipart/byteranges buys our clients nothing);
// a range that starts past the end is 416.
#pragma once

#include <cstdint>
#include <string>

namespace dumpsyms {

struct ByteRange {
  enum class Kind {
    Whole,         // no Range, several ranges, or a unit other than bytes
    Partial,       // [first, first + length)
    Unsatisfiable, // 416 with "Content-Range: bytes */size"
  };
  Kind kind = Kind::Whole;
  uint64_t first = 0;
  uint64_t length = 0;
};

// `header`: the Range value ("" when absent); `size`: the file's size.
// A header that is not a valid byte-ranges-specifier is ignored (Whole).
ByteRange parseByteRange(const std::string& header, uint64_t size);

// "bytes FIRST-LAST/SIZE" for a Partial range.
std::string contentRange(const ByteRange& range, uint64_t size);

} // namespace dumpsyms
