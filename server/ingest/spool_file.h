// A file an upload is written to before it is checked and published: made
// in the store backend's spool directory (where publishing is a rename),
// removed when it goes out of scope unless publishing consumed it.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

class SpoolFile {
public:
  static llvm::Expected<SpoolFile> create(const std::string& directory);
  SpoolFile(SpoolFile&& other) noexcept;
  SpoolFile& operator=(SpoolFile&& other) noexcept;
  SpoolFile(const SpoolFile&) = delete;
  ~SpoolFile();

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  llvm::Error write(llvm::StringRef bytes);
  // Closes the file for writing (before it is read back or published).
  llvm::Error close();
  // Publishing took the file: it is not removed here.
  void release() { path_.clear(); }

private:
  friend llvm::Expected<SpoolFile> spoolCopy(const std::string&, const std::string&);
  SpoolFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The bytes of the local file `source` (complete, no longer written) in
// `directory`: a hard link where the file system allows one, else a copy.
llvm::Expected<SpoolFile> spoolCopy(const std::string& source, const std::string& directory);

} // namespace dumpsyms
