// Writes an index's bytes in order, a block at a time: each kBlockSize of
// what follows the header is hashed as it passes (the checksum table), so
// that an index of any size is written through one small buffer, into a
// file or into memory. The header, which names the checksums, is written
// last, over the zeros that held its place.
#pragma once

#include "symbol_file/index/index_format.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

class IndexOutput {
public:
  // Into the open file `fd` (from its current start; `name` for errors).
  IndexOutput(int fd, std::string name);
  // Into memory (take() it after finish()).
  IndexOutput();

  void append(llvm::StringRef bytes);
  template <class T> void appendRecord(const T& record) {
    append(llvm::StringRef(reinterpret_cast<const char*>(&record), sizeof record));
  }
  void alignTo8();
  uint64_t size() const { return written_ + buffer_.size(); }

  // Writes the checksum table after what was appended, then `header` (its
  // checksum fields and size filled in here) over the start.
  llvm::Error finish(symbol_index::Header header);
  std::string take() { return std::move(memory_); }

private:
  void flushBlocks(bool all);
  llvm::Error writeOut(llvm::StringRef bytes);
  llvm::Error writeAt(uint64_t offset, llvm::StringRef bytes);

  int fd_ = -1;
  std::string name_;
  std::string memory_;
  std::string buffer_;   // not yet written: whole blocks are hashed, then written
  uint64_t written_ = 0; // bytes before buffer_
  std::vector<symbol_index::u64> checksums_;
  llvm::Error error_ = llvm::Error::success();
  bool failed_ = false;
};

} // namespace dumpsyms
