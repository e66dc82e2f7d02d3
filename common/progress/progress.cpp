#include "common/progress/progress.h"

#include <cstdio>

namespace dumpsyms {

Progress::Progress(bool enabled) : enabled_(enabled) {}

Progress::~Progress() {
  finish();
}

void Progress::update(const std::string& stage, size_t done, size_t total) {
  if (!enabled_)
    return;
  std::lock_guard lock(mutex_);
  auto now = std::chrono::steady_clock::now();
  if (done != total && now - last_draw_ < std::chrono::milliseconds(100))
    return;
  last_draw_ = now;
  unsigned percent = total ? static_cast<unsigned>(100 * done / total) : 100;
  std::fprintf(stderr, "\r\033[Kdump_syms: %s %zu/%zu (%u%%)", stage.c_str(), done, total, percent);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (drawn_) {
    std::fputs("\r\033[K", stderr);
    std::fflush(stderr);
    drawn_ = false;
  }
}

} // namespace dumpsyms
