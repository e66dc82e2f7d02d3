// Inflates one SHF_COMPRESSED section a few megabytes of input at a time,
// so that the caller can give back the pages of compressed input already
// read: inflating a compressed debug file otherwise holds it all mapped
// next to everything it inflates to (the peak of a dump, docs/MEMORY.md).
#pragma once

#include <cstdint>
#include <functional>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

// Called as inflation goes on: the first `consumed` bytes of the section
// will not be read again, and the first `produced` bytes of the output are
// final (the decoder reads them again only within its window: the last
// 32 KiB for zlib, up to the frame's window size for zstd).
using InflateProgress = std::function<void(uint64_t consumed, uint64_t produced)>;

// `section`: the section's bytes, compression header included; `out`:
// exactly the inflated size its header gives. Returns false when the
// section is not zlib or zstd, or is not one complete stream of exactly
// out.size() bytes: the caller then inflates it the ordinary way, which
// says what is wrong (`out` may hold anything by then).
bool inflateInChunks(llvm::StringRef section, bool is_64_bit, bool little_endian,
                     llvm::MutableArrayRef<char> out, const InflateProgress& progress);

} // namespace dumpsyms
