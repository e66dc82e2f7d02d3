// Inflates one SHF_COMPRESSED section a few megabytes of input at a time,
// so that the caller can give back the pages of compressed input already
// read: inflating a compressed debug file otherwise holds it all mapped
// next to everything it inflates to (the peak of a dump, docs/MEMORY.md).
#pragma once

#include "dump/object/zlib_inflate.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

// `section`: the section's bytes, compression header included; `out`:
// exactly the inflated size its header gives; `progress` counts the
// section's bytes, header included. zlib sections go through ISA-L
// (dump/object/zlib_inflate.h), zstd ones through libzstd. Returns false when
// the section is neither, or is not one complete stream of exactly
// out.size() bytes: the caller then inflates it the ordinary way (LLVM's
// Decompressor, zlib's own decoder), which says what is wrong (`out` may
// hold anything by then).
bool inflateInChunks(llvm::StringRef section, bool is_64_bit, bool little_endian,
                     llvm::MutableArrayRef<char> out, const InflateProgress& progress);

} // namespace dumpsyms
