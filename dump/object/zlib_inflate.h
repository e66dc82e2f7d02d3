// Inflates zlib streams (RFC 1950) with Intel's ISA-L, whose decoder is
// about 2.8 times as fast as zlib's on DWARF (docs/PERFORMANCE.md). zlib
// stays behind it: what ISA-L refuses is inflated again by zlib, which
// accepts a few streams ISA-L does not (a preset dictionary) and names what
// is wrong with the rest. Deflate decodes to one output only, so either
// library writes the same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>

namespace dumpsyms {

// Called as inflation goes on: the first `consumed` bytes of the input
// will not be read again, and the first `produced` bytes of the output are
// final (the decoder reads them again only within its window: the last
// 32 KiB for zlib, up to the frame's window size for zstd).
using InflateProgress = std::function<void(uint64_t consumed, uint64_t produced)>;

// The most output a zlib stream's decoder reads back.
inline constexpr uint64_t kZlibWindow = uint64_t(32) << 10;

// Streams `input` into `out` with ISA-L, a few megabytes of input between
// two calls of `progress`. True when `input` is one complete zlib stream
// (header, deflate blocks, Adler-32 checked) of exactly out.size() bytes
// and nothing after it; otherwise false, with `out` holding anything.
bool isalInflateZlib(llvm::StringRef input, llvm::MutableArrayRef<char> out,
                     const InflateProgress& progress);

// The whole stream at once: ISA-L, then zlib when ISA-L refuses it. The
// error is zlib's.
llvm::Error inflateZlib(llvm::StringRef input, llvm::MutableArrayRef<char> out);

} // namespace dumpsyms
