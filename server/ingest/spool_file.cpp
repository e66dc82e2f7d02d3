#include "server/ingest/spool_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/FileSystem.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace dumpsyms {

namespace {

constexpr mode_t kPublishedMode = 0644;

llvm::Error failure(const std::string& what, const std::string& path, int error) {
  return llvm::createStringError(what + " " + path + ": " + std::strerror(error));
}

} // namespace

llvm::Expected<SpoolFile> SpoolFile::create(const std::string& directory) {
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError("cannot create the spool directory " + directory + ": " +
                                   error.message());
  std::string pattern = directory + "/ingest-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0)
    return failure("cannot create a spool file in", directory, errno);
  // Published as it is: readable as `symstore add`'s files are, not
  // mkstemp's 0600 (nginx or another user serving the same store reads it).
  ::fchmod(fd, kPublishedMode);
  return SpoolFile(std::string(name.data()), fd);
}

SpoolFile::SpoolFile(SpoolFile&& other) noexcept
    : path_(std::exchange(other.path_, {})), fd_(std::exchange(other.fd_, -1)), size_(other.size_) {
}

SpoolFile& SpoolFile::operator=(SpoolFile&& other) noexcept {
  if (this != &other) {
    this->~SpoolFile();
    path_ = std::exchange(other.path_, {});
    fd_ = std::exchange(other.fd_, -1);
    size_ = other.size_;
  }
  return *this;
}

SpoolFile::~SpoolFile() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  if (!path_.empty())
    ::unlink(path_.c_str());
  path_.clear();
}

llvm::Error SpoolFile::write(llvm::StringRef bytes) {
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t written = ::write(fd_, data, left);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return failure("cannot write", path_, errno);
    data += written;
    left -= size_t(written);
    size_ += uint64_t(written);
  }
  return llvm::Error::success();
}

llvm::Error SpoolFile::close() {
  if (fd_ < 0)
    return llvm::Error::success();
  int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0)
    return failure("cannot write", path_, errno);
  return llvm::Error::success();
}

llvm::Expected<SpoolFile> spoolCopy(const std::string& source, const std::string& directory) {
  auto spool = SpoolFile::create(directory);
  if (!spool)
    return spool.takeError();
  // A second name for the same bytes where the file system allows it (the
  // server spools bodies beside the store's spool): no copy. The source is
  // complete and no longer written; its own name is removed by its owner.
  if (llvm::Error error = spool->close())
    return error;
  std::string linked = spool->path() + ".link";
  if (::link(source.c_str(), linked.c_str()) == 0) {
    if (::rename(linked.c_str(), spool->path().c_str()) == 0) {
      ::chmod(spool->path().c_str(), kPublishedMode);
      struct stat info = {};
      ::stat(spool->path().c_str(), &info);
      spool->size_ = uint64_t(info.st_size);
      return spool;
    }
    ::unlink(linked.c_str());
  }
  spool->fd_ = ::open(spool->path().c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (spool->fd_ < 0)
    return failure("cannot write", spool->path(), errno);
  int in = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return failure("cannot open", source, errno);
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t got = ::read(in, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int error = errno;
      ::close(in);
      return failure("cannot read", source, error);
    }
    if (got == 0)
      break;
    if (llvm::Error error = spool->write(llvm::StringRef(buffer.data(), size_t(got)))) {
      ::close(in);
      return error;
    }
  }
  ::close(in);
  if (llvm::Error error = spool->close())
    return error;
  return spool;
}

} // namespace dumpsyms
