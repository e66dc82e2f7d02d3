// Ends the connections whose clients closed their writing side while the
// server still waited for their request (a body or headers cut short, or a
// keep-alive connection between requests).
//
// Why: libmicrohttpd 0.9.75's epoll is edge-triggered and takes any short
// recv() to mean the socket is drained; when a client's last bytes and its
// end of stream arrive together, the end of stream is never reported again
// and the connection waits for the idle timeout. poll() would see it, but
// costs the server twice its CPU per download (bench/serve_bench.py). So
// the sockets are polled here, level-triggered, once a period: a socket
// whose peer has closed its side (POLLRDHUP), with nothing left unread, on
// two polls in a row, and whose connection is not making or sending an
// answer, is shut down, which gives epoll a new edge, and libmicrohttpd
// closes it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace dumpsyms {

class HalfCloseSweeper {
public:
  explicit HalfCloseSweeper(std::chrono::milliseconds period) : period_(period) {}
  ~HalfCloseSweeper() { stop(); }
  HalfCloseSweeper(const HalfCloseSweeper&) = delete;
  HalfCloseSweeper& operator=(const HalfCloseSweeper&) = delete;

  void start();
  void stop();

  // libmicrohttpd's connection notifications. `closed` is called before
  // the socket is closed: under the same lock, so a descriptor this class
  // acts on is never one the process has since reused.
  void opened(const void* connection, int fd);
  void closed(const void* connection);
  // Whether the connection is making or sending an answer (then its
  // client may well have closed its side: it waits for the answer).
  void answering(const void* connection, bool answering);

  // Sockets shut down so far.
  uint64_t ended() const;

  // One sweep now (the thread's step; the tests call it).
  void sweep();

private:
  struct Watched {
    int fd = -1;
    bool answering = false;
    unsigned closed_polls = 0; // polls in a row that saw the peer's side closed
  };

  std::chrono::milliseconds period_;
  mutable std::mutex mutex_;
  std::unordered_map<const void*, Watched> watched_;
  uint64_t ended_ = 0;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

} // namespace dumpsyms
