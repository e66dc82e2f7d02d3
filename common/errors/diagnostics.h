// Warnings and notes gathered while dumping. Every stage reports here; the
// command line prints a count by default and every message with -v.
// Parallel stages collect their messages locally and append them in a fixed
// order, so that the list is the same on every run.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace dumpsyms {

class Diagnostics {
public:
  void warn(std::string message) {
    std::lock_guard lock(mutex_);
    warnings_.push_back(std::move(message));
  }
  void warnAll(std::vector<std::string> messages) {
    std::lock_guard lock(mutex_);
    for (std::string& m : messages)
      warnings_.push_back(std::move(m));
  }
  // Facts shown only with -v (which debug file was used and why, ...).
  void note(std::string message) {
    std::lock_guard lock(mutex_);
    notes_.push_back(std::move(message));
  }

  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<std::string>& notes() const { return notes_; }

private:
  std::mutex mutex_;
  std::vector<std::string> warnings_;
  std::vector<std::string> notes_;
};

} // namespace dumpsyms
