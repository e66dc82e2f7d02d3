#include "store/backend/directory_backend.h"

#include "common/files/file_compare.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <utility>

namespace dumpsyms {
namespace {

llvm::Error errnoError(const std::string& what, const std::string& path, int error) {
  return llvm::createStringError(what + " " + path + ": " + std::strerror(error));
}

// Closes a descriptor on every path out of a function.
class FdCloser {
public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0)
      ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  int release() { return std::exchange(fd_, -1); }

private:
  int fd_;
};

// A strong validator from what changes whenever the bytes do: size and
// mtime to the nanosecond. The inode is left out: it differs between NFS
// servers exporting the same files, and servers over one store must agree.
StoredObjectInfo infoFromStat(const struct stat& st) {
  char etag[64];
  std::snprintf(
      etag, sizeof etag, "\"%llx-%llx%09lx\"", static_cast<unsigned long long>(st.st_size),
      static_cast<unsigned long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
  StoredObjectInfo info;
  info.size = static_cast<uint64_t>(st.st_size);
  info.etag = etag;
  info.mtime = static_cast<int64_t>(st.st_mtim.tv_sec);
  return info;
}

// Whether a key names a place inside the store at all: relative, with no
// empty, "." or ".." component. Internal keys (".uploads/...") may be
// published, so hidden names are allowed here; clients' paths are checked
// with isSafeRelativePath before they reach a backend.
bool isInsideKey(const std::string& relative) {
  if (relative.empty() || relative.front() == '/')
    return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos)
      end = relative.size();
    std::string component = relative.substr(start, end - start);
    if (component.empty() || component == "." || component == ".." ||
        component.find('\0') != std::string::npos)
      return false;
    start = end + 1;
  }
  return true;
}

class DirectoryBackend final : public StoreBackend {
public:
  DirectoryBackend(std::string root, mode_t file_mode)
      : root_(std::move(root)), file_mode_(file_mode),
        root_fd_(::open(root_.empty() ? "/" : root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)) {}
  ~DirectoryBackend() override {
    if (root_fd_ >= 0)
      ::close(root_fd_);
  }
  DirectoryBackend(const DirectoryBackend&) = delete;
  DirectoryBackend& operator=(const DirectoryBackend&) = delete;

  std::string describe() const override { return "directory " + root_; }
  std::string publicName() const override {
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(root_.empty() ? "/" : root_, real))
      real = root_;
    llvm::StringRef name = llvm::sys::path::filename(llvm::StringRef(real).rtrim('/'));
    return name.empty() || name == "." ? std::string("store") : name.str();
  }

  // The server's own files only (a completed sym-upload-v2 upload's
  // .uploads/<key>): the directory resolved inside the root, then the name
  // unlinked there, so that a link cannot lead the removal out of the store.
  llvm::Error remove(const std::string& relative) override {
    if (!isInsideKey(relative))
      return llvm::createStringError(relative + ": not a key of the store");
    size_t slash = relative.rfind('/');
    std::string parent = slash == std::string::npos ? "" : relative.substr(0, slash);
    std::optional<std::string> directory = resolveInside(parent.empty() ? root_ : path(parent));
    if (!directory)
      return llvm::Error::success(); // no such directory: the file is gone already
    std::string file = *directory + "/" + relative.substr(slash + 1);
    if (::unlink(file.c_str()) != 0 && errno != ENOENT)
      return errnoError("cannot remove", file, errno);
    return llvm::Error::success();
  }

  llvm::Expected<std::optional<StoredObjectInfo>> stat(const std::string& relative) override {
    struct stat st;
    int fd = openInside(relative, st);
    if (fd < 0)
      return std::nullopt;
    ::close(fd);
    return infoFromStat(st);
  }

  llvm::Expected<OpenedObject> open(const std::string& relative) override {
    struct stat st;
    int fd = openInside(relative, st);
    if (fd < 0)
      return llvm::createStringError(path(relative) + ": no such file in the store");
    OpenedObject opened;
    opened.info = infoFromStat(st);
    opened.fd = fd;
    return opened;
  }

  // A download's one question, answered with one open and one fstat (the
  // default would open the file twice: once to stat it, once to serve it).
  llvm::Expected<std::optional<OpenedObject>> openIfPresent(const std::string& relative) override {
    struct stat st;
    int fd = openInside(relative, st);
    if (fd < 0)
      return std::nullopt;
    OpenedObject opened;
    opened.info = infoFromStat(st);
    opened.fd = fd;
    return opened;
  }

  llvm::Expected<std::string> readRange(const std::string& relative, uint64_t offset,
                                        uint64_t length) override {
    struct stat st;
    int fd = openInside(relative, st);
    if (fd < 0)
      return llvm::createStringError(path(relative) + ": no such file in the store");
    FdCloser closer(fd);
    uint64_t size = static_cast<uint64_t>(st.st_size);
    if (offset >= size)
      return std::string();
    std::string bytes(std::min(length, size - offset), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t got =
          ::pread(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        return errnoError("cannot read", path(relative), errno);
      if (got == 0)
        break;
      done += static_cast<size_t>(got);
    }
    bytes.resize(done);
    return bytes;
  }

  llvm::Expected<std::vector<std::string>> listNames(const std::string& relative_dir) override {
    std::vector<std::string> names;
    std::string directory = root_;
    if (!relative_dir.empty()) {
      if (!isInsideKey(relative_dir))
        return names;
      std::optional<std::string> resolved = resolveInside(root_ + "/" + relative_dir);
      if (!resolved)
        return names;
      directory = *resolved;
    }
    DIR* dir = ::opendir(directory.c_str());
    if (!dir)
      return names; // none there: no names
    while (struct dirent* entry = ::readdir(dir)) {
      // Hidden names are the store's own (spool, uploads in flight,
      // temporaries, the build-id index): never listed.
      if (entry->d_name[0] != '.')
        names.emplace_back(entry->d_name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string spoolDirectory() const override {
    std::string spool = root_ + "/.incoming";
    ::mkdir(spool.c_str(), 0755); // exists already, or publish reports why not
    return spool;
  }

  llvm::Expected<PublishOutcome> publish(const std::string& relative, const std::string& spooled,
                                         bool replace) override {
    llvm::Expected<PublishOutcome> outcome = publishSpooled(relative, spooled, replace);
    ::unlink(spooled.c_str()); // consumed whatever happened (gone already when renamed)
    return outcome;
  }

private:
  std::string path(const std::string& relative) const { return root_ + "/" + relative; }

  // The canonical path of `path` if it lies under the root.
  std::optional<std::string> resolveInside(const std::string& path) const {
    char resolved[PATH_MAX];
    if (!::realpath(path.c_str(), resolved))
      return std::nullopt;
    std::string canonical(resolved);
    if (canonical != root_ && canonical.compare(0, root_.size() + 1, root_ + "/") != 0)
      return std::nullopt;
    return canonical;
  }

  // An open regular file the key resolves to under the root, else -1;
  // `st` is its fstat. The kernel resolves the key beneath the root in one
  // openat2 (links inside the store followed, a link leading out refused:
  // a link swapped in between cannot escape). O_NONBLOCK keeps a FIFO from
  // blocking the open; it is refused below.
  int openInside(const std::string& relative, struct stat& st) const {
    if (!isInsideKey(relative))
      return -1;
    constexpr int kFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (root_fd_ >= 0 && openat2_works_.load(std::memory_order_relaxed)) {
      struct open_how how = {};
      how.flags = kFlags;
      how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
      int fd = -1;
      // EAGAIN: a rename elsewhere in the store raced the resolution.
      for (int attempt = 0; attempt < 3; ++attempt) {
        fd = static_cast<int>(::syscall(SYS_openat2, root_fd_, relative.c_str(), &how, sizeof how));
        if (fd >= 0 || errno != EAGAIN)
          break;
      }
      if (fd >= 0)
        return regularFile(fd, st);
      if (errno == ENOENT || errno == ENOTDIR)
        return -1;
      // EXDEV: a link leading out of the root, or an absolute one, which
      // may still land inside the store: checked by hand below, as is every
      // path where openat2 is missing (ENOSYS, a kernel before 5.6) or a
      // sandbox refuses it (EPERM), from then on.
      if (errno == ENOSYS || errno == EPERM)
        openat2_works_.store(false, std::memory_order_relaxed);
    }
    int fd = ::open(path(relative).c_str(), kFlags);
    if (fd < 0)
      return -1;
    FdCloser closer(fd);
    // The file is opened first and its resolved path read from /proc
    // afterwards, so a link swapped between the check and the open cannot
    // escape.
    char link[64], resolved[PATH_MAX];
    std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t length = ::readlink(link, resolved, sizeof resolved - 1);
    std::string canonical;
    if (length > 0) {
      canonical.assign(resolved, static_cast<size_t>(length));
    } else {
      // No /proc (a minimal container): the path resolved again, which a
      // link swapped in between could fool, but nothing else can.
      std::optional<std::string> again = resolveInside(path(relative));
      if (!again)
        return -1;
      canonical = *again;
    }
    if (canonical.compare(0, root_.size() + 1, root_ + "/") != 0)
      return -1;
    return regularFile(closer.release(), st);
  }

  // `fd` if it is a regular file, made blocking again (F_SETFL changes only
  // the status flags, and none but O_NONBLOCK is set); else closed, -1.
  static int regularFile(int fd, struct stat& st) {
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::fcntl(fd, F_SETFL, 0) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  // Creates the directories above `relative`, each checked to stay under
  // the root (a directory link leading out of the store refuses the key).
  llvm::Error createParents(const std::string& relative) const {
    size_t slash = 0;
    while ((slash = relative.find('/', slash)) != std::string::npos) {
      std::string directory = path(relative.substr(0, slash));
      if (::mkdir(directory.c_str(), 0755) != 0 && errno != EEXIST)
        return errnoError("cannot create", directory, errno);
      if (!resolveInside(directory))
        return llvm::createStringError(directory + " leads outside the store");
      ++slash;
    }
    return llvm::Error::success();
  }

  // What is at the target compared with the spooled bytes.
  PublishOutcome compareExisting(const std::string& relative, int spooled_fd) const {
    struct stat st;
    int existing = openInside(relative, st);
    if (existing < 0)
      return PublishOutcome::Conflict; // a directory, a link out, a device: not ours to touch
    FdCloser closer(existing);
    return sameFileBytes(existing, spooled_fd) ? PublishOutcome::Same : PublishOutcome::Conflict;
  }

  llvm::Expected<PublishOutcome> publishSpooled(const std::string& relative,
                                                const std::string& spooled, bool replace) const {
    if (!isInsideKey(relative))
      return llvm::createStringError("'" + relative + "' is not a path inside the store");
    int spooled_fd = ::open(spooled.c_str(), O_RDONLY | O_CLOEXEC);
    if (spooled_fd < 0)
      return errnoError("cannot open", spooled, errno);
    FdCloser closer(spooled_fd);
    // The bytes reach the disk before the name does, so a crash after the
    // rename cannot leave a named file with missing data.
    // A spool file is made 0600; a published file is as readable as the
    // files `symstore add` writes (other servers, nginx, the walkers).
    if (::fchmod(spooled_fd, file_mode_) != 0)
      return errnoError("cannot set the mode of", spooled, errno);
    if (::fsync(spooled_fd) != 0 && errno != EINVAL)
      return errnoError("cannot sync", spooled, errno);
    if (llvm::Error error = createParents(relative))
      return error;
    std::string target = path(relative);

    if (replace) {
      // The same bytes again change nothing, not even the ETag.
      if (compareExisting(relative, spooled_fd) == PublishOutcome::Same)
        return PublishOutcome::Same;
      if (::rename(spooled.c_str(), target.c_str()) != 0)
        return renameFailed(relative, spooled, target, replace, errno);
      syncParent(target);
      return PublishOutcome::Published;
    }

    // Without replace, two servers publishing one key at once must not
    // both win: the kernel refuses the second name atomically, and the
    // loser compares what the winner published.
    if (::renameat2(AT_FDCWD, spooled.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) {
      syncParent(target);
      return PublishOutcome::Published;
    }
    int error = errno;
    if (error == EINVAL || error == ENOSYS) {
      // A file system without RENAME_NOREPLACE: link() fails on an
      // existing name just as atomically (NFS too).
      if (::link(spooled.c_str(), target.c_str()) == 0) {
        syncParent(target);
        return PublishOutcome::Published;
      }
      error = errno;
    }
    if (error == EEXIST)
      return compareExisting(relative, spooled_fd);
    return renameFailed(relative, spooled, target, replace, error);
  }

  // A spool on another file system than the store cannot be renamed into
  // it: copy it into the store's own spool first and publish from there.
  llvm::Expected<PublishOutcome> renameFailed(const std::string& relative,
                                              const std::string& spooled, const std::string& target,
                                              bool replace, int error) const {
    if (error != EXDEV || spooled.compare(0, root_.size() + 1, root_ + "/") == 0)
      return errnoError("cannot publish", target, error);
    std::string copy = spoolDirectory() + "/publish-XXXXXX";
    int copy_fd = ::mkstemp(copy.data());
    if (copy_fd < 0)
      return errnoError("cannot create", copy, errno);
    FdCloser copy_closer(copy_fd);
    int source = ::open(spooled.c_str(), O_RDONLY | O_CLOEXEC);
    if (source < 0) {
      ::unlink(copy.c_str());
      return errnoError("cannot open", spooled, errno);
    }
    FdCloser source_closer(source);
    char buffer[65536];
    while (true) {
      ssize_t got = ::read(source, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR)
        continue;
      bool failed = got < 0;
      for (ssize_t done = 0; !failed && done < got;) {
        ssize_t put = ::write(copy_fd, buffer + done, static_cast<size_t>(got - done));
        failed = put < 0;
        done += put;
      }
      if (failed) {
        int write_error = errno;
        ::unlink(copy.c_str());
        return errnoError("cannot copy", spooled, write_error);
      }
      if (got == 0)
        break;
    }
    llvm::Expected<PublishOutcome> outcome = publishSpooled(relative, copy, replace);
    ::unlink(copy.c_str());
    return outcome;
  }

  // The new name reaches the disk too (best effort: a failure here loses
  // nothing a reader could see).
  static void syncParent(const std::string& target) {
    std::string parent = target.substr(0, target.rfind('/'));
    int fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }

  std::string root_; // canonical, no trailing '/'
  mode_t file_mode_; // 0666 less the umask the server started with
  int root_fd_;      // the root, what openat2 resolves keys beneath; -1 if it could not be opened
  mutable std::atomic<bool> openat2_works_{true};
};

// Spooled bodies a killed server left in <root>/.incoming, and
// sym-upload-v2 uploads never completed in <root>/.uploads. Other servers
// over the same directory keep theirs there too, so only files a day old
// go: no request lives that long (they time out in seconds), nor does a
// client between its PUT and its :complete.
void removeStaleFilesIn(const std::string& spool) {
  DIR* dir = ::opendir(spool.c_str());
  if (!dir)
    return;
  time_t day_ago = ::time(nullptr) - 24 * 60 * 60;
  while (struct dirent* entry = ::readdir(dir)) {
    struct stat st;
    if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode) && st.st_mtime < day_ago)
      ::unlinkat(::dirfd(dir), entry->d_name, 0);
  }
  ::closedir(dir);
}

void removeStaleSpoolFiles(const std::string& root) {
  removeStaleFilesIn(root + "/.incoming");
  removeStaleFilesIn(root + "/.uploads");
}

} // namespace

llvm::Expected<std::unique_ptr<StoreBackend>> openDirectoryBackend(const std::string& root) {
  char resolved[PATH_MAX];
  if (!::realpath(root.c_str(), resolved))
    return errnoError("cannot open the store", root, errno);
  struct stat st;
  if (::stat(resolved, &st) != 0 || !S_ISDIR(st.st_mode))
    return llvm::createStringError(root + ": the store is not a directory");
  std::string canonical(resolved);
  // The root "/" itself: every path is under it.
  if (canonical == "/")
    canonical.clear();
  removeStaleSpoolFiles(canonical);
  // The umask read once, here, before a server starts its threads (reading
  // it means setting it).
  mode_t mask = ::umask(0);
  ::umask(mask);
  return std::make_unique<DirectoryBackend>(canonical, 0666 & ~mask);
}

} // namespace dumpsyms
