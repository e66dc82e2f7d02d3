#include "server/downloads/gzip_variant.h"

#include "common/files/atomic_file.h"
#include "common/gzip/gzip.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <map>
#include <memory>
#include <mutex>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

// 32 hex digits of SHA-256: a name that cannot collide in practice.
std::string hashName(const std::string& text) {
  std::array<uint8_t, 32> digest = llvm::SHA256::hash(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), 16), /*LowerCase=*/true);
}

// Removes the copies of older ETags beside `keep`.
void removeOlderCopies(const std::string& directory, const std::string& keep) {
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory, error), end; it != end && !error;
       it.increment(error)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (name.ends_with(".gz") && it->path() != keep)
      llvm::sys::fs::remove(it->path());
  }
}

llvm::Expected<GzipVariant> openCopy(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return llvm::createStringError(path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return llvm::createStringError(path + ": " + std::strerror(errno));
  }
  return GzipVariant{fd, static_cast<uint64_t>(st.st_size)};
}

// One compression per copy at a time in this process: requests racing for
// a copy nobody has made yet wait for the first to make it, rather than
// each compressing the same file (servers sharing a cache directory may
// still both make it; the rename keeps that harmless).
class CopyLocks {
public:
  std::shared_ptr<std::mutex> forPath(const std::string& path) {
    std::lock_guard<std::mutex> guard(mutex_);
    // Entries nobody holds any more are dropped as new ones come.
    for (auto it = locks_.begin(); it != locks_.end();)
      it = it->second.use_count() == 1 ? locks_.erase(it) : std::next(it);
    std::shared_ptr<std::mutex>& lock = locks_[path];
    if (!lock)
      lock = std::make_shared<std::mutex>();
    return lock;
  }

private:
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<std::mutex>> locks_;
};

CopyLocks& copyLocks() {
  static CopyLocks locks;
  return locks;
}

} // namespace

std::string gzipVariantEtag(const std::string& etag) {
  llvm::StringRef tag(etag);
  if (tag.size() >= 2 && tag.ends_with("\""))
    return tag.drop_back().str() + "-gzip\"";
  return "\"" + etag + "-gzip\"";
}

llvm::Expected<GzipVariant> gzipVariant(const std::string& cache_dir, const std::string& key,
                                        const std::string& etag, int fd, uint64_t offset,
                                        uint64_t length) {
  llvm::SmallString<256> directory(cache_dir);
  llvm::sys::path::append(directory, "gzip", hashName(key));
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, hashName(etag) + ".gz");
  std::string copy(path);

  if (llvm::Expected<GzipVariant> kept = openCopy(copy))
    return kept;
  else
    llvm::consumeError(kept.takeError());

  std::shared_ptr<std::mutex> lock = copyLocks().forPath(copy);
  std::lock_guard<std::mutex> guard(*lock);
  // Made while this request waited?
  if (llvm::Expected<GzipVariant> kept = openCopy(copy))
    return kept;
  else
    llvm::consumeError(kept.takeError());
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError(std::string(directory) + ": " + error.message());
  llvm::Expected<AtomicFile> file = AtomicFile::create(copy);
  if (!file)
    return file.takeError();
  if (llvm::Error error = gzipCompressRange(fd, offset, length, file->fd()))
    return error;
  if (llvm::Error error = file->commit())
    return error;
  removeOlderCopies(std::string(directory), copy);
  return openCopy(copy);
}

} // namespace dumpsyms
