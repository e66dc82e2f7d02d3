// What identifies the symbol file an index was built from: its size, its
// modification time and a hash of its bytes. An index whose stamp matches
// the file's size and time is the file's; one whose time differs (a copied
// store) is the file's only if the hash of the bytes agrees.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymStamp {
  uint64_t size = 0;
  uint64_t mtime_ns = 0;
  uint64_t hash = 0;
};

// contentHash() of bytes given a piece at a time, split anywhere.
class ContentHasher {
public:
  void add(llvm::StringRef bytes);
  uint64_t finish();
  uint64_t bytes() const { return bytes_; }

private:
  std::vector<uint64_t> chunk_hashes_;
  std::string partial_; // the start of a chunk not yet whole
  uint64_t bytes_ = 0;
};

// The hash the index records: xxh3-64 of every 1 MiB of the bytes, then
// xxh3-64 of those values (little-endian), so that a file can be hashed
// a chunk at a time, without holding it.
uint64_t contentHash(llvm::StringRef bytes);

// The same, of an open file read in chunks (its pages are not mapped into
// the process: hashing a large file does not grow the resident set).
llvm::Expected<uint64_t> contentHashOfFile(int fd, uint64_t size, const std::string& path);

} // namespace dumpsyms
