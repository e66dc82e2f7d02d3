// Decodes the binary annotations of an S_INLINESITE record: the compressed
// opcode stream that says which code offsets of the enclosing function the
// inlined call covers, and which source line each piece comes from.
#pragma once

#include <cstdint>
#include <llvm/ADT/ArrayRef.h>
#include <vector>

namespace dumpsyms {

// One piece of an inlined call: code offsets [start, end) from the start of
// the enclosing procedure come from `line` of the file whose checksum entry
// is at `file` (an offset into the module's checksums subsection).
struct InlinePiece {
  uint32_t start = 0;
  uint32_t end = 0;
  uint32_t line = 0;
  uint32_t file = 0;
};

// `line` and `file` are where the inlinee starts (its S_INLINEELINES entry).
// A piece whose length the stream never gives ends where the next begins, or
// at `code_size`. Malformed input ends the decoding (what was decoded stays).
std::vector<InlinePiece> decodeInlineAnnotations(llvm::ArrayRef<uint8_t> annotations, uint32_t line,
                                                 uint32_t file, uint32_t code_size);

} // namespace dumpsyms
