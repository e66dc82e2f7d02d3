// HTTP's validators and conditional requests (RFC 9110 sections 8.8 and
// 13): Last-Modified dates, entity tags, and whether If-None-Match or
// If-Modified-Since let a GET or HEAD answer 304.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dumpsyms {

// "Sun, 06 Nov 1994 08:49:37 GMT" (IMF-fixdate), always in English.
std::string formatHttpDate(int64_t seconds_since_epoch);
// IMF-fixdate only (what every current client sends); none otherwise.
std::optional<int64_t> parseHttpDate(const std::string& text);

// Whether an If-None-Match value ("*" or a list of entity tags, weak or
// strong) matches any of `etags` by the weak comparison RFC 9110 asks for
// with If-None-Match.
bool ifNoneMatchMatches(const std::string& header, const std::string& etag,
                        const std::string& other_etag = "");

// Whether a GET/HEAD with these header values (empty when absent) may be
// answered 304 for a file with `etag` (and its gzip variant's tag,
// `variant_etag`) and `mtime`: If-None-Match decides when present,
// If-Modified-Since only when it is not.
bool isNotModified(const std::string& if_none_match, const std::string& if_modified_since,
                   const std::string& etag, const std::string& variant_etag, int64_t mtime);

// Whether an If-Range value lets a Range apply: the strong tag `etag`, or
// a date no earlier than `mtime` (a date is only ever strong enough here
// because our validators change with the file's mtime).
bool ifRangeHolds(const std::string& if_range, const std::string& etag, int64_t mtime);

} // namespace dumpsyms
