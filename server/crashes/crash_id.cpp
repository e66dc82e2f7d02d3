#include "server/crashes/crash_id.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <random>

namespace dumpsyms {
namespace {

constexpr size_t kIdLength = 36;

bool isDash(size_t at) {
  return at == 8 || at == 13 || at == 18 || at == 23;
}

struct CivilDay {
  int year, month, day;
};

CivilDay civilDay(std::chrono::system_clock::time_point when) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  return {utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday};
}

} // namespace

std::string newCrashId(std::chrono::system_clock::time_point received) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  static const char kHex[] = "0123456789abcdef";
  std::string id(kIdLength, '0');
  for (size_t i = 0; i < kIdLength; ++i)
    id[i] = isDash(i) ? '-' : kHex[random() & 15];
  id[14] = '4';                      // version 4
  id[19] = kHex[8 + (random() & 3)]; // the RFC 4122 variant
  CivilDay day = civilDay(received);
  char tail[40];
  std::snprintf(tail, sizeof tail, "0%02d%02d%02d", day.year % 100, day.month, day.day);
  id.replace(kIdLength - 7, 7, std::string(tail).substr(0, 7));
  return id;
}

std::optional<std::string> parseCrashId(const std::string& text) {
  std::string id = text;
  if (id.size() == kIdLength + 3 && (id.compare(0, 3, "bp-") == 0 || id.compare(0, 3, "BP-") == 0))
    id.erase(0, 3);
  if (id.size() != kIdLength)
    return std::nullopt;
  for (size_t i = 0; i < kIdLength; ++i) {
    char& c = id[i];
    if (isDash(i)) {
      if (c != '-')
        return std::nullopt;
      continue;
    }
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  // The last seven: a throttle digit and yymmdd.
  for (size_t i = kIdLength - 7; i < kIdLength; ++i)
    if (!std::isdigit(static_cast<unsigned char>(id[i])))
      return std::nullopt;
  int month = std::stoi(id.substr(kIdLength - 4, 2));
  int day = std::stoi(id.substr(kIdLength - 2, 2));
  if (month < 1 || month > 12 || day < 1 || day > 31)
    return std::nullopt;
  return id;
}

std::string utcDay(std::chrono::system_clock::time_point when, bool dashes) {
  CivilDay day = civilDay(when);
  char text[48];
  std::snprintf(text, sizeof text, dashes ? "%04d-%02d-%02d" : "%04d%02d%02d", day.year, day.month,
                day.day);
  return text;
}

std::string crashDirectory(const std::string& id) {
  return "20" + id.substr(kIdLength - 6) + "/" + id;
}

std::string rfc3339(std::chrono::system_clock::time_point when) {
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
  std::time_t seconds = static_cast<std::time_t>(millis / 1000);
  if (millis < 0 && millis % 1000)
    --seconds;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(((millis % 1000) + 1000) % 1000));
  return text;
}

std::optional<std::chrono::system_clock::time_point> parseRfc3339(const std::string& text) {
  int year, month, day, hour, minute, second, used = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute,
                  &second, &used) != 6 ||
      used != 19)
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  size_t at = 19;
  int millis = 0;
  if (at < text.size() && text[at] == '.') {
    int digits = 0;
    for (++at; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at)
      if (digits++ < 3)
        millis = millis * 10 + (text[at] - '0');
    for (; digits < 3; ++digits)
      millis *= 10;
  }
  long offset = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    int oh = 0, om = 0;
    if (std::sscanf(text.c_str() + at + 1, "%2d:%2d", &oh, &om) != 2)
      return std::nullopt;
    offset = (text[at] == '-' ? -1 : 1) * (oh * 3600L + om * 60L);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size())
    return std::nullopt;
  std::tm utc{};
  utc.tm_year = year - 1900;
  utc.tm_mon = month - 1;
  utc.tm_mday = day;
  utc.tm_hour = hour;
  utc.tm_min = minute;
  utc.tm_sec = second;
  std::time_t seconds = timegm(&utc);
  return std::chrono::system_clock::from_time_t(seconds - offset) +
         std::chrono::milliseconds(millis);
}

} // namespace dumpsyms
