// Writes a file all at once or not at all: the data goes to a temporary file
// beside the target, which is renamed over it only when complete. A process
// killed mid-write leaves only a temporary whose name says which host and
// process made it, so that a later run can tell it is stale and remove it.
#pragma once

#include <functional>
#include <llvm/Support/Error.h>
#include <ostream>
#include <string>

namespace dumpsyms {

llvm::Error writeFileAtomically(const std::string& path,
                                const std::function<void(std::ostream&)>& write);

// The same for a writer that needs a file descriptor (a download): write to
// fd(), then commit(); destroyed uncommitted, the temporary is removed.
class AtomicFile {
public:
  static llvm::Expected<AtomicFile> create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  int fd() const { return fd_; }
  // Closes the temporary and renames it over the target.
  llvm::Error commit();

private:
  AtomicFile(std::string path, std::string temporary, int fd)
      : path_(std::move(path)), temporary_(std::move(temporary)), fd_(fd) {}
  std::string path_, temporary_;
  int fd_ = -1;
};

// writeFileAtomically's temporary, written but not committed: for a writer
// that decides after writing (symstore add leaves a file that already has
// the same bytes alone). Dropped uncommitted, the temporary is removed.
llvm::Expected<AtomicFile> writeTemporary(const std::string& path,
                                          const std::function<void(std::ostream&)>& write);

// Whether `file_name` is a temporary writeFileAtomically makes.
bool isAtomicTemporary(const std::string& file_name);

// Removes, under `directory` (recursively), every temporary whose writer is
// gone: made on this host by a process that no longer runs, or older than a
// day (from another host sharing the directory). Returns how many it removed.
size_t removeStaleTemporaries(const std::string& directory);

} // namespace dumpsyms
