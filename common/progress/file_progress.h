// The progress line of symstore add and upload on a terminal: files done of all,
// bytes done of all, an estimate of the time left, and a file at work.
// Drawn on stderr at most a few times a second; nothing when not enabled.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>

namespace dumpsyms {

class FileProgress {
public:
  FileProgress(bool enabled, size_t total_files, uint64_t total_bytes);

  void started(const std::string& path);
  void finished(const std::string& path, uint64_t bytes);
  // Erases the line (before other output, and at the end).
  void clear();

private:
  void draw(bool force);

  bool enabled_;
  size_t total_files_;
  uint64_t total_bytes_;
  size_t done_files_ = 0;
  uint64_t done_bytes_ = 0;
  std::multiset<std::string> running_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

} // namespace dumpsyms
