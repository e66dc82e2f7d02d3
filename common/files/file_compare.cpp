#include "common/files/file_compare.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {
namespace {

// Up to `length` bytes at `offset`, retrying short reads; -1 on an error.
ssize_t readFully(int fd, char* buffer, size_t length, off_t offset) {
  size_t done = 0;
  while (done < length) {
    ssize_t got = ::pread(fd, buffer + done, length - done, offset + static_cast<off_t>(done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return -1;
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  return static_cast<ssize_t>(done);
}

} // namespace

bool sameFileBytes(int fd_a, int fd_b) {
  struct stat st_a, st_b;
  if (::fstat(fd_a, &st_a) != 0 || ::fstat(fd_b, &st_b) != 0 || st_a.st_size != st_b.st_size)
    return false;
  constexpr size_t kChunk = 1 << 16;
  std::vector<char> a(kChunk), b(kChunk);
  for (off_t offset = 0;;) {
    ssize_t got_a = readFully(fd_a, a.data(), kChunk, offset);
    ssize_t got_b = readFully(fd_b, b.data(), kChunk, offset);
    if (got_a < 0 || got_a != got_b || std::memcmp(a.data(), b.data(), got_a) != 0)
      return false;
    if (got_a == 0)
      return true;
    offset += got_a;
  }
}

bool sameFileBytes(const std::string& path_a, const std::string& path_b) {
  int fd_a = ::open(path_a.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_a < 0)
    return false;
  int fd_b = ::open(path_b.c_str(), O_RDONLY | O_CLOEXEC);
  bool same = fd_b >= 0 && sameFileBytes(fd_a, fd_b);
  ::close(fd_a);
  if (fd_b >= 0)
    ::close(fd_b);
  return same;
}

} // namespace dumpsyms
