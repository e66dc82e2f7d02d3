#include "server/http/half_close_sweeper.h"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <vector>

namespace dumpsyms {

void HalfCloseSweeper::start() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) {
      lock.unlock();
      sweep();
      lock.lock();
    }
  });
}

void HalfCloseSweeper::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable())
    thread_.join();
}

void HalfCloseSweeper::opened(const void* connection, int fd) {
  std::lock_guard<std::mutex> lock(mutex_);
  watched_[connection] = Watched{fd};
}

void HalfCloseSweeper::closed(const void* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  watched_.erase(connection);
}

void HalfCloseSweeper::answering(const void* connection, bool answering) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = watched_.find(connection); found != watched_.end()) {
    found->second.answering = answering;
    found->second.closed_polls = 0;
  }
}

uint64_t HalfCloseSweeper::ended() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ended_;
}

void HalfCloseSweeper::sweep() {
  // The lock is held across poll() (which does not wait) and shutdown():
  // no descriptor polled here is closed meanwhile.
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<pollfd> fds;
  std::vector<Watched*> of;
  fds.reserve(watched_.size());
  for (auto& [connection, watched] : watched_) {
    if (watched.answering || watched.fd < 0)
      continue;
    fds.push_back(pollfd{watched.fd, POLLRDHUP, 0});
    of.push_back(&watched);
  }
  if (fds.empty() || ::poll(fds.data(), fds.size(), 0) < 0)
    return;
  for (size_t i = 0; i < fds.size(); ++i) {
    Watched& watched = *of[i];
    // Bytes libmicrohttpd has not read yet may be a whole request (its
    // thread busy with another connection's answer): it reads them, and
    // answers, before the socket counts as left waiting.
    int unread = 0;
    if (!(fds[i].revents & (POLLRDHUP | POLLHUP | POLLERR)) ||
        ::ioctl(watched.fd, FIONREAD, &unread) != 0 || unread > 0) {
      watched.closed_polls = 0;
      continue;
    }
    // Two polls in a row: a request read whole is being answered by then
    // (libmicrohttpd calls the handler right after reading it).
    if (++watched.closed_polls < 2)
      continue;
    ::shutdown(watched.fd, SHUT_RDWR);
    watched.fd = -1;
    ++ended_;
  }
}

} // namespace dumpsyms
