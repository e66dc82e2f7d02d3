// A crash's id, Socorro's form: a random (version 4) UUID whose last seven
// characters are a throttle digit ("0": accepted) and the day it was
// received, yymmdd (UTC). Clients are answered "CrashID=bp-<id>"; the id
// alone names the crash's place in the crash store, <yyyymmdd>/<id>/.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace dumpsyms {

std::string newCrashId(std::chrono::system_clock::time_point received);

// The id in `text` ("bp-" optional, any case), lower-cased; none unless it
// is 8-4-4-4-12 hex digits ending in a throttle digit and a valid yymmdd.
std::optional<std::string> parseCrashId(const std::string& text);

// "20261207/<id>": the crash's directory in the crash store.
std::string crashDirectory(const std::string& id);

// The UTC day of `when`: "2026-12-07", or "20261207" without dashes (the
// crash store's directories).
std::string utcDay(std::chrono::system_clock::time_point when, bool dashes = true);

// RFC 3339 in UTC with milliseconds: "2026-12-07T19:35:18.123Z".
std::string rfc3339(std::chrono::system_clock::time_point when);
// Back; none for another form. Accepts "Z" or an offset, fractions or not.
std::optional<std::chrono::system_clock::time_point> parseRfc3339(const std::string& text);

} // namespace dumpsyms
