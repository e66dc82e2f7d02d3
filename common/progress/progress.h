// A one-line progress display on stderr, shown only on a terminal and
// redrawn at most a few times a second. Safe to call from worker threads.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

namespace dumpsyms {

class Progress {
public:
  explicit Progress(bool enabled);
  ~Progress();

  void update(const std::string& stage, size_t done, size_t total);
  // Clears the line before anything else is printed.
  void finish();

private:
  bool enabled_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point last_draw_{};
};

} // namespace dumpsyms
