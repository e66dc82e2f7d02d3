#include "walk/microdump/microdump_records.h"

namespace dumpsyms {

namespace {

constexpr llvm::StringLiteral kBegin = "-----BEGIN BREAKPAD MICRODUMP-----";
constexpr llvm::StringLiteral kEnd = "-----END BREAKPAD MICRODUMP-----";
constexpr llvm::StringLiteral kTag = "google-breakpad";

bool isRecord(llvm::StringRef text) {
  return text.size() >= 2 && text[1] == ' ' && llvm::StringRef("VOPRGHSCM").contains(text[0]);
}

} // namespace

bool mentionsMicrodump(llvm::StringRef head) {
  return head.contains(kBegin);
}

MicrodumpText findMicrodump(llvm::StringRef log) {
  MicrodumpText out;
  bool inside = false, tagged = false;
  size_t prefix = 0;
  size_t number = 0;
  while (!log.empty()) {
    auto [line, rest] = log.split('\n');
    log = rest;
    ++number;
    line = line.rtrim("\r");
    if (!inside) {
      size_t at = line.find(kBegin);
      if (at == llvm::StringRef::npos)
        continue;
      if (out.begin_line) { // the first one has ended: only counted
        ++out.more_microdumps;
        continue;
      }
      inside = true;
      out.begin_line = number;
      prefix = at;
      tagged = line.take_front(at).contains(kTag);
      continue;
    }
    if (line.contains(kEnd)) {
      out.ended = true;
      inside = false;
      continue;
    }
    if (line.contains(kBegin)) { // a BEGIN without an END: this one starts over
      out.records.clear();
      out.begin_line = number;
      prefix = line.find(kBegin);
      tagged = line.take_front(prefix).contains(kTag);
      continue;
    }
    llvm::StringRef record;
    if (tagged) {
      // logcat: "<date time> W/google-breakpad(<pid>): <record>"; other
      // tags' lines are another program's.
      size_t tag = line.find(kTag);
      if (tag == llvm::StringRef::npos)
        continue;
      size_t colon = line.find(": ", tag);
      if (colon == llvm::StringRef::npos)
        continue;
      record = line.drop_front(colon + 2);
    } else if (line.size() >= prefix && isRecord(line.drop_front(prefix))) {
      record = line.drop_front(prefix);
    } else if (isRecord(line)) {
      record = line;
    } else {
      continue;
    }
    if (!isRecord(record))
      continue;
    out.records.push_back({record[0], record.drop_front(2), number});
  }
  return out;
}

} // namespace dumpsyms
