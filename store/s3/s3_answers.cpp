#include "store/s3/s3_answers.h"

#include "common/http/http_answers.h"

#include <algorithm>

namespace dumpsyms {

std::vector<std::string> xmlValues(llvm::StringRef xml, llvm::StringRef tag) {
  std::vector<std::string> out;
  std::string open = "<" + tag.str() + ">", close = "</" + tag.str() + ">";
  size_t at = 0;
  while ((at = xml.find(open, at)) != llvm::StringRef::npos) {
    size_t start = at + open.size();
    size_t end = xml.find(close, start);
    if (end == llvm::StringRef::npos)
      break;
    out.push_back(xml.slice(start, end).str());
    at = end + close.size();
  }
  return out;
}

S3ListingPage parseListingPage(llvm::StringRef xml) {
  S3ListingPage page;
  page.keys = xmlValues(xml, "Key");
  auto truncated = xmlValues(xml, "IsTruncated");
  auto next = xmlValues(xml, "NextContinuationToken");
  if (!truncated.empty() && truncated.front() == "true" && !next.empty())
    page.continuation = next.front();
  return page;
}

namespace {

// XML's five named entities and numeric character references (as UTF-8);
// anything else is kept as it is.
std::string xmlUnescape(llvm::StringRef text) {
  std::string out;
  while (!text.empty()) {
    size_t amp = text.find('&');
    out += text.take_front(amp).str();
    if (amp == llvm::StringRef::npos)
      break;
    text = text.drop_front(amp);
    size_t semi = text.find(';');
    llvm::StringRef entity = semi == llvm::StringRef::npos ? "" : text.slice(1, semi);
    static const std::pair<const char*, char> kNamed[] = {
        {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
    bool done = false;
    for (auto [name, c] : kNamed)
      if (entity == name) {
        out += c;
        done = true;
      }
    unsigned code = 0;
    if (!done && entity.size() > 1 && entity.front() == '#') {
      llvm::StringRef digits = entity.drop_front();
      bool hex = digits.consume_front("x") || digits.consume_front("X");
      if (!digits.getAsInteger(hex ? 16 : 10, code) && code > 0 && code <= 0x10FFFF) {
        if (code < 0x80) {
          out += char(code);
        } else if (code < 0x800) {
          out += char(0xC0 | (code >> 6));
          out += char(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
          out += char(0xE0 | (code >> 12));
          out += char(0x80 | ((code >> 6) & 0x3F));
          out += char(0x80 | (code & 0x3F));
        } else {
          out += char(0xF0 | (code >> 18));
          out += char(0x80 | ((code >> 12) & 0x3F));
          out += char(0x80 | ((code >> 6) & 0x3F));
          out += char(0x80 | (code & 0x3F));
        }
        done = true;
      }
    }
    if (done) {
      text = text.drop_front(semi + 1);
    } else {
      out += '&';
      text = text.drop_front();
    }
  }
  return out;
}

} // namespace

S3DirectoryPage parseDirectoryListingPage(llvm::StringRef xml) {
  S3DirectoryPage page;
  for (const std::string& contents : xmlValues(xml, "Contents"))
    for (const std::string& key : xmlValues(contents, "Key"))
      page.keys.push_back(xmlUnescape(key));
  for (const std::string& common : xmlValues(xml, "CommonPrefixes"))
    for (const std::string& prefix : xmlValues(common, "Prefix"))
      page.common_prefixes.push_back(xmlUnescape(prefix));
  auto truncated = xmlValues(xml, "IsTruncated");
  auto next = xmlValues(xml, "NextContinuationToken");
  if (!truncated.empty() && truncated.front() == "true" && !next.empty())
    page.continuation = xmlUnescape(next.front());
  return page;
}

std::optional<int64_t> parseIso8601Utc(llvm::StringRef text) {
  // YYYY-MM-DDTHH:MM:SS, then optional fractions, then Z.
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || !text.ends_with("Z"))
    return std::nullopt;
  auto field = [&](size_t at, size_t length, int& out) {
    return !text.substr(at, length).getAsInteger(10, out);
  };
  std::tm parts{};
  int year = 0, month = 0;
  if (!field(0, 4, year) || !field(5, 2, month) || !field(8, 2, parts.tm_mday) ||
      !field(11, 2, parts.tm_hour) || !field(14, 2, parts.tm_min) || !field(17, 2, parts.tm_sec) ||
      month < 1 || month > 12 || parts.tm_mday < 1 || parts.tm_mday > 31 || parts.tm_hour > 23 ||
      parts.tm_min > 59 || parts.tm_sec > 60)
    return std::nullopt;
  parts.tm_year = year - 1900;
  parts.tm_mon = month - 1;
  return static_cast<int64_t>(timegm(&parts));
}

S3ObjectsPage parseObjectListingPage(llvm::StringRef xml) {
  S3ObjectsPage page;
  for (const std::string& contents : xmlValues(xml, "Contents")) {
    auto keys = xmlValues(contents, "Key");
    if (keys.empty())
      continue;
    S3ListedObject object;
    object.key = xmlUnescape(keys.front());
    auto sizes = xmlValues(contents, "Size");
    if (sizes.empty() || llvm::StringRef(sizes.front()).getAsInteger(10, object.size))
      continue;
    auto etags = xmlValues(contents, "ETag");
    object.etag = etags.empty() ? "" : xmlUnescape(etags.front());
    auto dates = xmlValues(contents, "LastModified");
    if (!dates.empty())
      object.mtime = parseIso8601Utc(dates.front()).value_or(0);
    page.objects.push_back(std::move(object));
  }
  auto truncated = xmlValues(xml, "IsTruncated");
  auto next = xmlValues(xml, "NextContinuationToken");
  if (!truncated.empty() && truncated.front() == "true" && !next.empty())
    page.continuation = xmlUnescape(next.front());
  return page;
}

std::string s3Failure(const std::string& what, const HttpResponse& response) {
  auto code = xmlValues(response.body, "Code");
  if (response.answered() && !code.empty()) {
    auto message = xmlValues(response.body, "Message");
    return what + ": HTTP " + std::to_string(response.status) + " " + quotableLine(code.front()) +
           (message.empty() ? "" : ": " + quotableLine(message.front())) + answerCutNote(response);
  }
  return describeFailure(what, response);
}

} // namespace dumpsyms
