#include "server/downloads/http_validators.h"

#include <array>
#include <cstdio>
#include <ctime>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

constexpr std::array<const char*, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// The opaque part of an entity tag with any W/ prefix dropped, for the weak
// comparison.
llvm::StringRef opaqueTag(llvm::StringRef tag) {
  tag = tag.trim();
  tag.consume_front("W/");
  return tag;
}

bool parseNumber(llvm::StringRef text, size_t digits, int& out) {
  if (text.size() != digits)
    return false;
  unsigned value = 0;
  if (text.getAsInteger(10, value))
    return false;
  out = static_cast<int>(value);
  return true;
}

} // namespace

std::string formatHttpDate(int64_t seconds_since_epoch) {
  std::time_t t = static_cast<std::time_t>(seconds_since_epoch);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[64];
  std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday % 7],
                tm.tm_mday, kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return text;
}

std::optional<int64_t> parseHttpDate(const std::string& text) {
  // "Sun, 06 Nov 1994 08:49:37 GMT"
  llvm::SmallVector<llvm::StringRef, 8> parts;
  llvm::StringRef(text).trim().split(parts, ' ', -1, false);
  if (parts.size() != 6 || parts[5] != "GMT" || !parts[0].ends_with(","))
    return std::nullopt;
  std::tm tm{};
  int month = -1;
  for (size_t i = 0; i < kMonths.size(); ++i)
    if (parts[2] == kMonths[i])
      month = static_cast<int>(i);
  llvm::SmallVector<llvm::StringRef, 3> clock;
  parts[4].split(clock, ':');
  if (month < 0 || clock.size() != 3 || !parseNumber(parts[1], 2, tm.tm_mday) ||
      !parseNumber(parts[3], 4, tm.tm_year) || !parseNumber(clock[0], 2, tm.tm_hour) ||
      !parseNumber(clock[1], 2, tm.tm_min) || !parseNumber(clock[2], 2, tm.tm_sec))
    return std::nullopt;
  if (tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_mon = month;
  tm.tm_year -= 1900;
  return static_cast<int64_t>(timegm(&tm));
}

bool ifNoneMatchMatches(const std::string& header, const std::string& etag,
                        const std::string& other_etag) {
  llvm::StringRef value = llvm::StringRef(header).trim();
  if (value == "*")
    return true;
  llvm::SmallVector<llvm::StringRef, 4> tags;
  value.split(tags, ',', -1, false);
  for (llvm::StringRef tag : tags) {
    llvm::StringRef opaque = opaqueTag(tag);
    if (opaque.empty())
      continue;
    if (opaque == opaqueTag(etag) || (!other_etag.empty() && opaque == opaqueTag(other_etag)))
      return true;
  }
  return false;
}

bool isNotModified(const std::string& if_none_match, const std::string& if_modified_since,
                   const std::string& etag, const std::string& variant_etag, int64_t mtime) {
  if (!if_none_match.empty())
    return ifNoneMatchMatches(if_none_match, etag, variant_etag);
  if (if_modified_since.empty())
    return false;
  std::optional<int64_t> since = parseHttpDate(if_modified_since);
  return since && mtime <= *since;
}

bool ifRangeHolds(const std::string& if_range, const std::string& etag, int64_t mtime) {
  llvm::StringRef value = llvm::StringRef(if_range).trim();
  if (value.empty())
    return true;
  if (value.starts_with("\"") || value.starts_with("W/"))
    return !value.starts_with("W/") && value == llvm::StringRef(etag).trim();
  std::optional<int64_t> date = parseHttpDate(value.str());
  return date && mtime <= *date;
}

} // namespace dumpsyms
