#include "dwarf/chunked_inflate.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/Endian.h>
#include <zlib.h>
#include <zstd.h>

namespace dumpsyms {

namespace {

// Input read between two progress calls.
constexpr size_t kChunk = size_t(4) << 20;
// zlib counts in 32-bit units.
constexpr size_t kMaxZlibStep = size_t(1) << 30;

bool inflateZlib(llvm::StringRef input, size_t header, llvm::MutableArrayRef<char> out,
                 const InflateProgress& progress) {
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK)
    return false;
  size_t in = 0, out_given = 0;
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    if (stream.avail_in == 0) {
      if (in == input.size())
        break;
      size_t step = std::min(kChunk, input.size() - in);
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data() + in));
      stream.avail_in = static_cast<uInt>(step);
      in += step;
    }
    if (stream.avail_out == 0) {
      if (out_given == out.size())
        break;
      size_t step = std::min(kMaxZlibStep, out.size() - out_given);
      stream.next_out = reinterpret_cast<Bytef*>(out.data() + out_given);
      stream.avail_out = static_cast<uInt>(step);
      out_given += step;
    }
    result = inflate(&stream, Z_NO_FLUSH);
    if (result != Z_OK && result != Z_STREAM_END)
      break;
    progress(header + in - stream.avail_in, stream.total_out);
  }
  bool complete = result == Z_STREAM_END && stream.avail_in == 0 && in == input.size() &&
                  stream.total_out == out.size();
  inflateEnd(&stream);
  return complete;
}

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
    return inflateZlib(input, header, out, progress);
  if (type == llvm::ELF::ELFCOMPRESS_ZSTD)
    return inflateZstd(input, header, out, progress);
  return false;
}

} // namespace dumpsyms
