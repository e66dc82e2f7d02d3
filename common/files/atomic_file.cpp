#include "common/files/atomic_file.h"

#include "common/errors/file_error.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// ".<target>.tmp-<host>-<pid>-XXXXXX"
constexpr const char* kMarker = ".tmp-";

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0)
    return "host";
  std::string out(name);
  for (char& c : out)
    if (c == '-' || c == '/')
      c = '_';
  return out;
}

// The host and pid a temporary's name records.
bool parseTemporary(const std::string& file_name, std::string& host, long& pid) {
  if (!isAtomicTemporary(file_name))
    return false;
  size_t marker = file_name.rfind(kMarker);
  std::string rest = file_name.substr(marker + std::strlen(kMarker)); // host-pid-XXXXXX
  size_t random_dash = rest.rfind('-');
  if (random_dash == std::string::npos)
    return false;
  size_t pid_dash = rest.rfind('-', random_dash - 1);
  if (pid_dash == std::string::npos || random_dash == 0)
    return false;
  host = rest.substr(0, pid_dash);
  pid = std::strtol(rest.substr(pid_dash + 1, random_dash - pid_dash - 1).c_str(), nullptr, 10);
  return pid > 0;
}

// A process that has exited and not yet been reaped writes nothing more.
bool isZombie(long pid) {
  std::FILE* stat = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!stat)
    return false;
  char line[512] = {};
  size_t n = std::fread(line, 1, sizeof line - 1, stat);
  std::fclose(stat);
  // "pid (comm) S ...": the state follows the last ')'.
  const char* close = std::strrchr(line, ')');
  return n && close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X');
}

} // namespace

bool isAtomicTemporary(const std::string& file_name) {
  return file_name.size() > 1 && file_name[0] == '.' &&
         file_name.rfind(kMarker) != std::string::npos;
}

llvm::Expected<AtomicFile> AtomicFile::create(const std::string& path) {
  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (directory.empty())
    directory = ".";
  std::string pattern = (directory + "/." + llvm::sys::path::filename(path) + kMarker + hostName() +
                         "-" + std::to_string(getpid()) + "-XXXXXX")
                            .str();
  int fd = mkstemp(pattern.data());
  if (fd < 0)
    return fileError(path, std::string("cannot create the output file: ") + std::strerror(errno));
  return AtomicFile(path, pattern, fd);
}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : path_(std::move(other.path_)), temporary_(std::move(other.temporary_)), fd_(other.fd_) {
  other.fd_ = -1;
  other.temporary_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0)
    close(fd_);
  if (!temporary_.empty())
    std::remove(temporary_.c_str());
}

llvm::Error AtomicFile::commit() {
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0)
    return fileError(path_, std::string("cannot write the output file: ") + std::strerror(errno));
  // mkstemp creates the file 0600; a symbol file is as readable as any other.
  mode_t mask = umask(0);
  umask(mask);
  chmod(temporary_.c_str(), 0666 & ~mask);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    return fileError(path_, std::string("cannot write the output file: ") + std::strerror(errno));
  temporary_.clear();
  return llvm::Error::success();
}

llvm::Expected<AtomicFile> writeTemporary(const std::string& path,
                                          const std::function<void(std::ostream&)>& write) {
  auto file = AtomicFile::create(path);
  if (!file)
    return file.takeError();
  bool ok;
  {
    // The buffer writes to a duplicate, so that the AtomicFile still owns
    // (and closes) its own descriptor.
    int copy = dup(file->fd());
    if (copy < 0)
      return fileError(path, std::string("cannot write the output file: ") + std::strerror(errno));
    __gnu_cxx::stdio_filebuf<char> buffer(copy, std::ios::out, 1 << 16);
    std::ostream stream(&buffer);
    write(stream);
    stream.flush();
    ok = stream.good();
    ok = buffer.close() != nullptr && ok;
  }
  if (!ok)
    return fileError(path, std::string("cannot write the output file: ") + std::strerror(errno));
  return std::move(*file);
}

llvm::Error writeFileAtomically(const std::string& path,
                                const std::function<void(std::ostream&)>& write) {
  auto file = writeTemporary(path, write);
  if (!file)
    return file.takeError();
  return file->commit();
}

size_t removeStaleTemporaries(const std::string& directory) {
  const std::string host = hostName();
  const auto now = std::chrono::system_clock::now();
  size_t removed = 0;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(directory, error, /*follow_symlinks=*/false),
       end;
       it != end && !error; it.increment(error)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    std::string writer_host;
    long pid = 0;
    if (it->type() != llvm::sys::fs::file_type::regular_file ||
        !parseTemporary(name, writer_host, pid))
      continue;
    bool stale;
    if (writer_host == host) {
      // A pid equal to ours is an earlier process's: this one has not
      // started writing when it cleans up.
      stale = pid == getpid() || (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ||
              isZombie(pid);
    } else {
      llvm::sys::fs::file_status status;
      stale = !llvm::sys::fs::status(it->path(), status) &&
              now - status.getLastModificationTime() > std::chrono::hours(24);
    }
    if (stale && std::remove(it->path().c_str()) == 0)
      ++removed;
  }
  return removed;
}

} // namespace dumpsyms
