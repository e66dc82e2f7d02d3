// The module's identifier bytes and the two forms Breakpad writes of them
// (spec section 5): the MODULE debug id and INFO CODE_ID.
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

// The first 16 bytes read as a little-endian GUID, upper-case hex, plus the
// age digit "0": 33 characters.
std::string debugIdentifier(const std::vector<uint8_t>& identifier);

// Every identifier byte as upper-case hex, unswapped.
std::string codeIdentifier(const std::vector<uint8_t>& identifier);

// The XOR fold itself, exposed for tests: 16 bytes.
std::vector<uint8_t> textHash(llvm::StringRef text_and_following_bytes, uint64_t text_size);

} // namespace dumpsyms
