#include "symbol_file/index/index_output.h"

#include "common/errors/file_error.h"

#include <cerrno>
#include <cstring>
#include <llvm/Support/xxhash.h>
#include <unistd.h>

namespace dumpsyms {

using namespace symbol_index;

namespace {
constexpr size_t kBuffered = 16 * kBlockSize; // 1 MiB
} // namespace

IndexOutput::IndexOutput(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
  buffer_.reserve(kBuffered + kHeaderSize);
  buffer_.assign(kHeaderSize, '\0'); // the header's place
}

IndexOutput::IndexOutput() : IndexOutput(-1, "<in memory>") {}

void IndexOutput::append(llvm::StringRef bytes) {
  while (!bytes.empty()) {
    size_t room = kBuffered + (written_ == 0 ? kHeaderSize : 0) - buffer_.size();
    size_t take = std::min(room, bytes.size());
    buffer_.append(bytes.data(), take);
    bytes = bytes.drop_front(take);
    if (buffer_.size() == kBuffered + (written_ == 0 ? kHeaderSize : 0))
      flushBlocks(false);
  }
}

void IndexOutput::alignTo8() {
  static const char zeros[8] = {};
  append(llvm::StringRef(zeros, (8 - size() % 8) % 8));
}

// Hashes the buffer's blocks (the last one only when `all`: it may not be
// whole yet) and writes them out.
void IndexOutput::flushBlocks(bool all) {
  size_t start = written_ == 0 ? kHeaderSize : 0; // the header is not hashed
  size_t end = start;
  while (buffer_.size() - end >= kBlockSize || (all && end < buffer_.size())) {
    size_t block = std::min<size_t>(kBlockSize, buffer_.size() - end);
    checksums_.emplace_back(llvm::xxh3_64bits(llvm::StringRef(buffer_).substr(end, block)));
    end += block;
  }
  if (auto error = writeOut(llvm::StringRef(buffer_).take_front(end))) {
    if (!failed_)
      error_ = std::move(error);
    else
      llvm::consumeError(std::move(error));
    failed_ = true;
  }
  written_ += end;
  buffer_.erase(0, end);
}

llvm::Error IndexOutput::writeOut(llvm::StringRef bytes) {
  if (failed_)
    return llvm::Error::success();
  if (fd_ < 0) {
    memory_.append(bytes.data(), bytes.size());
    return llvm::Error::success();
  }
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fileError(name_, std::string("cannot write the index: ") + std::strerror(errno));
    bytes = bytes.drop_front(static_cast<size_t>(n));
  }
  return llvm::Error::success();
}

llvm::Error IndexOutput::writeAt(uint64_t offset, llvm::StringRef bytes) {
  if (fd_ < 0) {
    std::memcpy(memory_.data() + offset, bytes.data(), bytes.size());
    return llvm::Error::success();
  }
  while (!bytes.empty()) {
    ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return fileError(name_, std::string("cannot write the index: ") + std::strerror(errno));
    bytes = bytes.drop_front(static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
  }
  return llvm::Error::success();
}

llvm::Error IndexOutput::finish(Header header) {
  alignTo8();
  header.checksums_offset = size();
  flushBlocks(true);
  if (failed_)
    return std::move(error_);
  llvm::StringRef table(reinterpret_cast<const char*>(checksums_.data()),
                        checksums_.size() * sizeof(u64));
  header.checksums_hash = llvm::xxh3_64bits(table);
  header.file_size = written_ + table.size();
  if (auto error = writeOut(table))
    return error;
  written_ += table.size();
  header.header_hash = llvm::xxh3_64bits(
      llvm::StringRef(reinterpret_cast<const char*>(&header), offsetof(Header, header_hash)));
  return writeAt(0, llvm::StringRef(reinterpret_cast<const char*>(&header), sizeof header));
}

} // namespace dumpsyms
