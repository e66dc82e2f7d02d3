#include "common/files/file_start.h"

#include <fcntl.h>
#include <unistd.h>

namespace dumpsyms {

std::string fileStart(const std::string& path, size_t count) {
  std::string bytes(count, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {};
  ssize_t got = ::read(fd, bytes.data(), bytes.size());
  ::close(fd);
  bytes.resize(got > 0 ? static_cast<size_t>(got) : 0);
  return bytes;
}

} // namespace dumpsyms
