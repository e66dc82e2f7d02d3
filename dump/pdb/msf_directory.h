// The MSF container's superblock and stream directory, read and checked
// before LLVM's PDBFile sees them. LLVM 19 sizes its free page map by the
// superblock's block count before comparing it with the file, and checks a
// stream's blocks with 32-bit arithmetic (block 0xFFFFFFFF passes as block
// -1 + 1 = 0 and is read later through a null pointer; docs/FUZZING.md).
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <vector>

namespace dumpsyms {

struct MsfDirectory {
  uint32_t block_size = 0;
  uint32_t block_count = 0;
  std::vector<uint32_t> stream_sizes;        // 0xFFFFFFFF: a nil stream
  std::vector<uint64_t> stream_size_offsets; // where each size is in the file
};

// The directory of the MSF file `bytes`, or what is wrong with it: blocks
// the file does not hold, a directory or a block list past its end.
llvm::Expected<MsfDirectory> readMsfDirectory(llvm::StringRef bytes);

} // namespace dumpsyms
