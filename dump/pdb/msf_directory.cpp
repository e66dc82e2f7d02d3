#include "dump/pdb/msf_directory.h"

#include <fmt/format.h>
#include <llvm/DebugInfo/MSF/MSFCommon.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

using namespace llvm;

namespace {

Error problem(const std::string& what) {
  return createStringError(inconvertibleErrorCode(), "%s", what.c_str());
}

} // namespace

Expected<MsfDirectory> readMsfDirectory(StringRef file) {
  if (file.size() < sizeof(msf::SuperBlock))
    return problem("the file is shorter than an MSF superblock");
  const auto* super = reinterpret_cast<const msf::SuperBlock*>(file.data());
  MsfDirectory out;
  out.block_size = super->BlockSize;
  out.block_count = super->NumBlocks;
  uint64_t block_size = out.block_size, blocks = out.block_count;
  if (!msf::isValidBlockSize(out.block_size))
    return problem(fmt::format("the block size is {}", out.block_size));
  if (blocks * block_size > file.size())
    return problem(fmt::format("the superblock counts {} blocks of {} bytes, but the file holds "
                               "{} bytes",
                               blocks, block_size, file.size()));
  auto u32 = [&](uint64_t at) { return support::endian::read32le(file.data() + at); };
  // Byte `at` of the directory, wherever its block is; false past its end.
  uint64_t directory_bytes = super->NumDirectoryBytes;
  uint64_t directory_blocks = (directory_bytes + block_size - 1) / block_size;
  if (super->BlockMapAddr >= blocks || directory_blocks > block_size / 4)
    return problem("the stream directory's block map is not in the file");
  uint64_t block_map = uint64_t(super->BlockMapAddr) * block_size;
  for (uint64_t i = 0; i < directory_blocks; ++i)
    if (u32(block_map + 4 * i) >= blocks)
      return problem("the stream directory lies in a block the file does not hold");
  auto directory = [&](uint64_t at, uint64_t& in_file) {
    if (at + 4 > directory_bytes)
      return false;
    in_file = uint64_t(u32(block_map + 4 * (at / block_size))) * block_size + at % block_size;
    return true;
  };
  uint64_t at = 0, in_file = 0;
  if (!directory(at, in_file))
    return problem("the stream directory is empty");
  uint64_t streams = u32(in_file);
  at += 4;
  for (uint64_t i = 0; i < streams; ++i, at += 4) {
    if (!directory(at, in_file))
      return problem(fmt::format("the stream directory ends before stream {}'s size", i));
    out.stream_sizes.push_back(u32(in_file));
    out.stream_size_offsets.push_back(in_file);
  }
  for (uint64_t i = 0; i < streams; ++i) {
    uint64_t size = out.stream_sizes[i] == UINT32_MAX ? 0 : out.stream_sizes[i];
    for (uint64_t k = 0; k < (size + block_size - 1) / block_size; ++k, at += 4) {
      if (!directory(at, in_file))
        return problem(fmt::format("the stream directory ends in stream {}'s block list", i));
      if (uint32_t block = u32(in_file); block >= blocks)
        return problem(fmt::format("stream {} is said to be in block {} of a {}-block file", i,
                                   block, blocks));
    }
  }
  return out;
}

} // namespace dumpsyms
