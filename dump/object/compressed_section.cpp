#include "dump/object/compressed_section.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/Endian.h>
#include <zstd.h>

namespace dumpsyms {

namespace {

// Input read between two progress calls.
constexpr size_t kChunk = size_t(4) << 20;

bool inflateZstd(llvm::StringRef input, size_t header, llvm::MutableArrayRef<char> out,
                 const InflateProgress& progress) {
  ZSTD_DCtx* context = ZSTD_createDCtx();
  if (!context)
    return false;
  ZSTD_outBuffer target{out.data(), out.size(), 0};
  size_t in = 0, last = 1;
  bool failed = false;
  while (in < input.size() && !failed) {
    size_t step = std::min(kChunk, input.size() - in);
    ZSTD_inBuffer source{input.data() + in, step, 0};
    while (source.pos < source.size) {
      size_t before = target.pos;
      last = ZSTD_decompressStream(context, &target, &source);
      if (ZSTD_isError(last) ||
          (target.pos == before && target.pos == target.size && source.pos < source.size)) {
        failed = true;
        break;
      }
    }
    in += step;
    progress(header + in, target.pos);
  }
  ZSTD_freeDCtx(context);
  // ZSTD_decompress, which LLVM calls, takes concatenated frames as well;
  // a stream ends on a frame boundary.
  return !failed && last == 0 && target.pos == out.size();
}

} // namespace

bool inflateInChunks(llvm::StringRef section, bool is_64_bit, bool little_endian,
                     llvm::MutableArrayRef<char> out, const InflateProgress& progress) {
  size_t header = is_64_bit ? sizeof(llvm::ELF::Elf64_Chdr) : sizeof(llvm::ELF::Elf32_Chdr);
  if (section.size() < header)
    return false;
  uint32_t type = little_endian ? llvm::support::endian::read32le(section.data())
                                : llvm::support::endian::read32be(section.data());
  llvm::StringRef input = section.drop_front(header);
  if (type == llvm::ELF::ELFCOMPRESS_ZLIB)
    return isalInflateZlib(input, out, [&](uint64_t consumed, uint64_t produced) {
      progress(header + consumed, produced);
    });
  if (type == llvm::ELF::ELFCOMPRESS_ZSTD)
    return inflateZstd(input, header, out, progress);
  return false;
}

} // namespace dumpsyms
