#include "common/http/http_answers.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>

namespace dumpsyms {

std::string HttpResponse::header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? "" : it->second;
}

void addHeaderLine(HttpResponse& response, llvm::StringRef line) {
  if (line.starts_with("HTTP/")) {
    response.headers.clear();
    return;
  }
  size_t colon = line.find(':');
  if (colon == llvm::StringRef::npos)
    return;
  std::string name = line.take_front(colon).trim().lower();
  response.headers[name] = line.drop_front(colon + 1).trim().str();
}

bool addBodyBytes(HttpResponse& response, llvm::StringRef bytes) {
  if (bytes.size() > limits::kMaxAnswerBody - response.body.size()) {
    response.body_over_limit = true;
    return false;
  }
  response.body.append(bytes.data(), bytes.size());
  return true;
}

bool isRetryable(const HttpResponse& response) {
  if (response.download_over_limit) // the same file would be as large again
    return false;
  if (!response.answered())
    return true;
  return response.status == 408 || response.status == 429 || response.status >= 500;
}

std::optional<double> retryAfterSeconds(const std::string& value, std::time_t now) {
  if (value.empty())
    return std::nullopt;
  if (std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::strtod(value.c_str(), nullptr);
  // An HTTP date: "Sun, 06 Nov 1994 08:49:37 GMT".
  std::tm date = {};
  const char* end = strptime(value.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &date);
  if (!end)
    return std::nullopt;
  std::time_t when = timegm(&date);
  return std::max(0.0, std::difftime(when, now));
}

std::string quotableLine(llvm::StringRef text) {
  text = text.take_until([](char c) { return c == '\n' || c == '\r'; });
  bool cut = text.size() > limits::kMaxQuotedAnswer;
  std::string out = text.take_front(limits::kMaxQuotedAnswer).str();
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return cut ? out + "..." : out;
}

std::string answerCutNote(const HttpResponse& response) {
  return response.body_over_limit
             ? " (" + limits::overLimit("the answer", limits::kMaxAnswerBody, "bytes") +
                   ": read no further)"
             : "";
}

std::string describeFailure(const std::string& what, const HttpResponse& response) {
  if (!response.answered())
    return what + ": " + quotableLine(response.transport_error);
  std::string body = quotableLine(response.body);
  return what + ": HTTP " + std::to_string(response.status) + (body.empty() ? "" : " " + body) +
         answerCutNote(response);
}

} // namespace dumpsyms
