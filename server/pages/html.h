// Writing HTML from values that came from uploaded files: every piece of
// text goes through escapeHtml, so a C++ name holding "<script>" is shown
// as text. Markup is only ever written by the pages themselves.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dumpsyms {

// Text for an element's content or a quoted attribute: & < > " ' escaped,
// and bytes that are not valid UTF-8 (or are control characters other than
// tab and newline) shown as U+FFFD, so a page is always well-formed UTF-8.
std::string escapeHtml(std::string_view text);

// A path segment or query value percent-encoded (RFC 3986 unreserved kept).
std::string percentEncode(std::string_view text);

// "1,234,567".
std::string groupedNumber(uint64_t value);
// "171.3 MB" (powers of 1000, one decimal; "812 bytes" below 1000).
std::string byteSize(uint64_t bytes);
// part/whole as "97.4%" ("-" when whole is 0).
std::string percentOf(uint64_t part, uint64_t whole);
// (Addresses: hexAddress in walk/printers/walk_printers.h.)
// "2026-12-05 03:41 UTC".
std::string utcTime(int64_t seconds_since_epoch);

} // namespace dumpsyms
