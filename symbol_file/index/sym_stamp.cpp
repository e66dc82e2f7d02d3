#include "symbol_file/index/sym_stamp.h"

#include "common/errors/file_error.h"

#include <cerrno>
#include <cstring>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/xxhash.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {

namespace {

constexpr size_t kChunk = size_t(1) << 20;

uint64_t chunkHash(llvm::StringRef chunk) {
  return llvm::xxh3_64bits(
      llvm::ArrayRef(reinterpret_cast<const uint8_t*>(chunk.data()), chunk.size()));
}

} // namespace

void ContentHasher::add(llvm::StringRef bytes) {
  bytes_ += bytes.size();
  if (!partial_.empty()) {
    size_t take = std::min(kChunk - partial_.size(), bytes.size());
    partial_.append(bytes.data(), take);
    bytes = bytes.drop_front(take);
    if (partial_.size() < kChunk)
      return;
    chunk_hashes_.push_back(chunkHash(partial_));
    partial_.clear();
  }
  while (bytes.size() >= kChunk) {
    chunk_hashes_.push_back(chunkHash(bytes.take_front(kChunk)));
    bytes = bytes.drop_front(kChunk);
  }
  partial_.assign(bytes.data(), bytes.size());
}

uint64_t ContentHasher::finish() {
  if (!partial_.empty())
    chunk_hashes_.push_back(chunkHash(partial_));
  partial_.clear();
  std::vector<llvm::support::ulittle64_t> little(chunk_hashes_.begin(), chunk_hashes_.end());
  return llvm::xxh3_64bits(llvm::ArrayRef(reinterpret_cast<const uint8_t*>(little.data()),
                                          little.size() * sizeof(little[0])));
}

uint64_t contentHash(llvm::StringRef bytes) {
  ContentHasher hasher;
  hasher.add(bytes);
  return hasher.finish();
}

llvm::Expected<uint64_t> contentHashOfFile(int fd, uint64_t size, const std::string& path) {
  ContentHasher hasher;
  std::vector<char> buffer(kChunk);
  for (uint64_t at = 0; at < size; at += kChunk) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, size - at));
    size_t got = 0;
    while (got < want) {
      ssize_t n = ::pread(fd, buffer.data() + got, want - got, static_cast<off_t>(at + got));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return fileError(path, n < 0 ? std::string("cannot read it: ") + std::strerror(errno)
                                     : std::string("it shrank while it was read"));
      got += static_cast<size_t>(n);
    }
    hasher.add(llvm::StringRef(buffer.data(), want));
  }
  return hasher.finish();
}

} // namespace dumpsyms
