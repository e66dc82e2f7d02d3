// The counters `/metrics` shows, in Prometheus' text format 0.0.4:
// requests by route and status, response bytes by route, a latency
// histogram, and the upload counters server/ingest/ keeps. Updated from
// every server thread.
#pragma once

#include "server/ingest/upload_service.h"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

class ServerMetrics {
public:
  explicit ServerMetrics(const UploadCounters& uploads) : uploads_(uploads) {}

  void record(const std::string& route, int status, uint64_t bytes,
              std::chrono::steady_clock::duration duration);
  // A request refused for its token (401, 403).
  void authRefused(int status);

  // The whole exposition, every line a sample or a comment.
  std::string text() const;
  // More lines of the exposition, asked for each time (the crash inbox's).
  void addSource(std::function<std::string()> source) { sources_.push_back(std::move(source)); }

private:
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,    5};
  const UploadCounters& uploads_;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;
  std::map<std::string, uint64_t> bytes_;
  std::array<uint64_t, kBuckets.size() + 1> histogram_{}; // the last: above every bucket
  double seconds_sum_ = 0;
  uint64_t seconds_count_ = 0;
  std::atomic<uint64_t> unauthorized_{0}, forbidden_{0};
  std::vector<std::function<std::string()>> sources_;
};

} // namespace dumpsyms
