#include "server/service/metrics.h"

#include <cstdio>

namespace dumpsyms {
namespace {

// A label value as the format wants it: backslash, quote and newline escaped.
std::string labelValue(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '\\' || c == '"')
      escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped += c;
  }
  return escaped;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

void family(std::string& out, const char* name, const char* type, const char* help) {
  out += std::string("# HELP ") + name + " " + help + "\n";
  out += std::string("# TYPE ") + name + " " + type + "\n";
}

} // namespace

void ServerMetrics::record(const std::string& route, int status, uint64_t bytes,
                           std::chrono::steady_clock::duration duration) {
  double seconds = std::chrono::duration<double>(duration).count();
  size_t bucket = 0;
  while (bucket < kBuckets.size() && seconds > kBuckets[bucket])
    ++bucket;
  std::lock_guard lock(mutex_);
  ++requests_[{route, status}];
  bytes_[route] += bytes;
  ++histogram_[bucket];
  seconds_sum_ += seconds;
  ++seconds_count_;
}

void ServerMetrics::authRefused(int status) {
  (status == 401 ? unauthorized_ : forbidden_).fetch_add(1);
}

std::string ServerMetrics::text() const {
  std::string out;
  {
    std::lock_guard lock(mutex_);
    family(out, "symstore_requests_total", "counter", "Requests answered, by route and status.");
    for (const auto& [key, count] : requests_)
      out += "symstore_requests_total{route=\"" + labelValue(key.first) + "\",status=\"" +
             std::to_string(key.second) + "\"} " + std::to_string(count) + "\n";
    family(out, "symstore_response_bytes_total", "counter",
           "Body bytes of the answers sent, by route.");
    for (const auto& [route, bytes] : bytes_)
      out += "symstore_response_bytes_total{route=\"" + labelValue(route) + "\"} " +
             std::to_string(bytes) + "\n";
    family(out, "symstore_request_duration_seconds", "histogram",
           "Time from a request's headers to its answer's last byte.");
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += histogram_[i];
      out += "symstore_request_duration_seconds_bucket{le=\"" + number(kBuckets[i]) + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    cumulative += histogram_[kBuckets.size()];
    out += "symstore_request_duration_seconds_bucket{le=\"+Inf\"} " + std::to_string(cumulative) +
           "\n";
    out += "symstore_request_duration_seconds_sum " + number(seconds_sum_) + "\n";
    out += "symstore_request_duration_seconds_count " + std::to_string(seconds_count_) + "\n";
  }
  family(out, "symstore_uploads_total", "counter", "Uploaded files, by what became of them.");
  out += "symstore_uploads_total{outcome=\"published\"} " +
         std::to_string(uploads_.files_published.load()) + "\n";
  out += "symstore_uploads_total{outcome=\"same\"} " + std::to_string(uploads_.files_same.load()) +
         "\n";
  family(out, "symstore_upload_refusals_total", "counter",
         "Uploads refused (bad files, paths, conflicts, sizes).");
  out += "symstore_upload_refusals_total " + std::to_string(uploads_.refusals.load()) + "\n";
  family(out, "symstore_upload_received_bytes_total", "counter", "Bytes of uploaded files.");
  out += "symstore_upload_received_bytes_total " + std::to_string(uploads_.bytes_received.load()) +
         "\n";
  family(out, "symstore_auth_refusals_total", "counter",
         "Requests refused for their token: 401 none, 403 wrong or insufficient.");
  out +=
      "symstore_auth_refusals_total{status=\"401\"} " + std::to_string(unauthorized_.load()) + "\n";
  out += "symstore_auth_refusals_total{status=\"403\"} " + std::to_string(forbidden_.load()) + "\n";
  for (const auto& source : sources_)
    out += source();
  return out;
}

} // namespace dumpsyms
