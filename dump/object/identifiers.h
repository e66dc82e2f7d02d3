// The module's identifier bytes (spec section 5), of which Breakpad writes
// the MODULE debug id and INFO CODE_ID (common/ids: DebugId::fromIdentifier,
// CodeId::fromBytes).
#pragma once

#include "dump/object/elf_image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

// The GNU build-id (from the .note.gnu.build-id section, else from PT_NOTE
// segments) or, without one, the XOR fold of the first 4 KiB of .text.
// Empty when neither exists.
std::vector<uint8_t> moduleIdentifier(const ElfImage& image);

// The GNU build-id alone (section, else PT_NOTE), for matching companion
// files; empty when there is none.
std::vector<uint8_t> gnuBuildId(const ElfImage& image);

// The XOR fold itself, exposed for tests: 16 bytes.
std::vector<uint8_t> textHash(llvm::StringRef text_and_following_bytes, uint64_t text_size);

} // namespace dumpsyms
