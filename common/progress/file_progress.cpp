#include "common/progress/file_progress.h"

#include <cstdio>

namespace dumpsyms {

FileProgress::FileProgress(bool enabled, size_t total_files, uint64_t total_bytes)
    : enabled_(enabled), total_files_(total_files), total_bytes_(total_bytes) {}

void FileProgress::started(const std::string& path) {
  if (!enabled_)
    return;
  std::lock_guard lock(mutex_);
  running_.insert(path);
  draw(false);
}

void FileProgress::finished(const std::string& path, uint64_t bytes) {
  if (!enabled_)
    return;
  std::lock_guard lock(mutex_);
  if (auto it = running_.find(path); it != running_.end())
    running_.erase(it);
  ++done_files_;
  done_bytes_ += bytes;
  draw(false);
}

void FileProgress::clear() {
  if (!enabled_)
    return;
  std::lock_guard lock(mutex_);
  if (drawn_)
    std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
  last_draw_ = {};
}

void FileProgress::draw(bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(200))
    return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string eta = "--:--";
  if (done_bytes_ > 0 && total_bytes_ > done_bytes_) {
    double left = elapsed * double(total_bytes_ - done_bytes_) / double(done_bytes_);
    char text[32];
    std::snprintf(text, sizeof text, "%d:%02d", int(left) / 60, int(left) % 60);
    eta = text;
  }
  std::string current = running_.empty() ? "" : *running_.begin();
  if (current.size() > 40)
    current = "..." + current.substr(current.size() - 37);
  std::fprintf(stderr, "\r\033[Ksymstore: %zu/%zu files, %.1f/%.1f MB, ETA %s  %s", done_files_,
               total_files_, double(done_bytes_) / 1e6, double(total_bytes_) / 1e6, eta.c_str(),
               current.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

} // namespace dumpsyms
