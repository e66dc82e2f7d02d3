#include "dump/pdb/nil_streams.h"

#include <algorithm>
#include <deque>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BinaryByteStream.h>
#include <llvm/Support/Endian.h>
#include <map>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// The file's bytes with a few whole blocks replaced by patched copies.
class PatchedBlocks : public BinaryStream {
public:
  PatchedBlocks(std::unique_ptr<MemoryBuffer> buffer, uint64_t block_size,
                std::map<uint64_t, std::vector<uint8_t>> patched)
      : buffer_(std::move(buffer)), block_size_(block_size), patched_(std::move(patched)) {}

  endianness getEndian() const override { return endianness::little; }
  uint64_t getLength() override { return buffer_->getBufferSize(); }

  Error readBytes(uint64_t offset, uint64_t size, ArrayRef<uint8_t>& out) override {
    if (Error error = checkOffsetForRead(offset, size))
      return error;
    if (size == 0) {
      out = bytes().slice(offset, 0);
      return Error::success();
    }
    uint64_t first = offset / block_size_, last = (offset + size - 1) / block_size_;
    auto patch = patched_.lower_bound(first);
    if (patch == patched_.end() || patch->first > last) {
      out = bytes().slice(offset, size);
      return Error::success();
    }
    if (first == last) {
      out = ArrayRef<uint8_t>(patch->second).slice(offset % block_size_, size);
      return Error::success();
    }
    // Across blocks, some patched: a copy that lives as long as the stream.
    std::vector<uint8_t>& copy = copies_.emplace_back(bytes().slice(offset, size).vec());
    for (; patch != patched_.end() && patch->first <= last; ++patch) {
      uint64_t start = std::max(offset, patch->first * block_size_);
      uint64_t end = std::min(offset + size, (patch->first + 1) * block_size_);
      std::copy(patch->second.begin() + (start - patch->first * block_size_),
                patch->second.begin() + (end - patch->first * block_size_),
                copy.begin() + (start - offset));
    }
    out = copy;
    return Error::success();
  }

  Error readLongestContiguousChunk(uint64_t offset, ArrayRef<uint8_t>& out) override {
    if (Error error = checkOffsetForRead(offset, 1))
      return error;
    uint64_t block = offset / block_size_;
    if (auto patch = patched_.find(block); patch != patched_.end()) {
      out = ArrayRef<uint8_t>(patch->second).drop_front(offset % block_size_);
      return Error::success();
    }
    auto next = patched_.upper_bound(block);
    uint64_t end = next == patched_.end() ? getLength() : next->first * block_size_;
    out = bytes().slice(offset, end - offset);
    return Error::success();
  }

private:
  ArrayRef<uint8_t> bytes() const { return arrayRefFromStringRef(buffer_->getBuffer()); }

  std::unique_ptr<MemoryBuffer> buffer_;
  uint64_t block_size_;
  std::map<uint64_t, std::vector<uint8_t>> patched_; // block index -> its bytes
  std::deque<std::vector<uint8_t>> copies_;
};

} // namespace

std::unique_ptr<BinaryStream> withNilStreamsEmpty(std::unique_ptr<MemoryBuffer> bytes,
                                                  const MsfDirectory& directory) {
  StringRef file = bytes->getBuffer();
  uint64_t block_size = directory.block_size;
  std::map<uint64_t, std::vector<uint8_t>> patched;
  for (size_t i = 0; i < directory.stream_sizes.size(); ++i) {
    if (directory.stream_sizes[i] != UINT32_MAX)
      continue;
    uint64_t at = directory.stream_size_offsets[i], block = at / block_size;
    auto [copy, added] = patched.try_emplace(block);
    if (added)
      copy->second.assign(file.begin() + block * block_size,
                          file.begin() + (block + 1) * block_size);
    support::endian::write32le(copy->second.data() + at % block_size, 0);
  }
  if (patched.empty())
    return std::make_unique<MemoryBufferByteStream>(std::move(bytes), endianness::little);
  return std::make_unique<PatchedBlocks>(std::move(bytes), block_size, std::move(patched));
}

} // namespace dumpsyms
