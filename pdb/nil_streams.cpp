#include "pdb/nil_streams.h"

#include <algorithm>
#include <deque>
#include <llvm/ADT/StringExtras.h>
#include <llvm/DebugInfo/MSF/MSFCommon.h>
#include <llvm/Support/BinaryByteStream.h>
#include <llvm/Support/Endian.h>
#include <map>
#include <optional>
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

// The file offsets of the directory's nil stream sizes; none when the
// superblock or the directory cannot be followed (LLVM then says why).
std::optional<std::vector<uint64_t>> nilSizeOffsets(StringRef file, uint64_t& block_size) {
  auto u32 = [&](uint64_t at) -> std::optional<uint32_t> {
    if (at > file.size() || file.size() - at < 4)
      return std::nullopt;
    return support::endian::read32le(file.data() + at);
  };
  if (file.size() < sizeof(msf::SuperBlock))
    return std::nullopt;
  const auto* super = reinterpret_cast<const msf::SuperBlock*>(file.data());
  block_size = super->BlockSize;
  if (!msf::isValidBlockSize(super->BlockSize))
    return std::nullopt;
  uint64_t directory_bytes = super->NumDirectoryBytes;
  uint64_t directory_blocks = (directory_bytes + block_size - 1) / block_size;
  uint64_t block_map = uint64_t(super->BlockMapAddr) * block_size;
  // Where byte `at` of the directory is in the file.
  auto inFile = [&](uint64_t at) -> std::optional<uint64_t> {
    if (at / block_size >= directory_blocks)
      return std::nullopt;
    std::optional<uint32_t> block = u32(block_map + 4 * (at / block_size));
    if (!block)
      return std::nullopt;
    return uint64_t(*block) * block_size + at % block_size;
  };
  std::optional<uint64_t> count_at = inFile(0);
  std::optional<uint32_t> count = count_at ? u32(*count_at) : std::nullopt;
  if (!count || *count > directory_bytes / 4)
    return std::nullopt;
  std::vector<uint64_t> nil;
  for (uint64_t i = 0; i < *count; ++i) {
    std::optional<uint64_t> at = inFile(4 + 4 * i);
    std::optional<uint32_t> size = at ? u32(*at) : std::nullopt;
    if (!size)
      return std::nullopt;
    if (*size == UINT32_MAX)
      nil.push_back(*at);
  }
  return nil;
}

} // namespace

std::unique_ptr<BinaryStream> withNilStreamsEmpty(std::unique_ptr<MemoryBuffer> bytes) {
  uint64_t block_size = 0;
  std::optional<std::vector<uint64_t>> nil = nilSizeOffsets(bytes->getBuffer(), block_size);
  if (!nil || nil->empty())
    return std::make_unique<MemoryBufferByteStream>(std::move(bytes), endianness::little);
  StringRef file = bytes->getBuffer();
  std::map<uint64_t, std::vector<uint8_t>> patched;
  for (uint64_t at : *nil) {
    uint64_t block = at / block_size;
    if ((block + 1) * block_size > file.size())
      continue; // a partial last block: LLVM refuses the file's size
    auto [copy, added] = patched.try_emplace(block);
    if (added)
      copy->second.assign(file.begin() + block * block_size,
                          file.begin() + (block + 1) * block_size);
    support::endian::write32le(copy->second.data() + at % block_size, 0);
  }
  return std::make_unique<PatchedBlocks>(std::move(bytes), block_size, std::move(patched));
}

} // namespace dumpsyms
