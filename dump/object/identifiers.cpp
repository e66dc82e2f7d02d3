#include "dump/object/identifiers.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <optional>

namespace dumpsyms {

namespace {

uint32_t readWord(llvm::StringRef bytes, size_t offset, bool little_endian) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; ++i) {
    uint8_t byte = static_cast<uint8_t>(bytes[offset + i]);
    value |= uint32_t(byte) << (8 * (little_endian ? i : 3 - i));
  }
  return value;
}

// Walks ELF notes (12-byte header, name and descriptor each padded to 4
// bytes) and returns the descriptor of the first NT_GNU_BUILD_ID note. As in
// Breakpad, the owner name is not checked.
std::optional<std::vector<uint8_t>> findBuildId(llvm::StringRef notes, bool little_endian) {
  size_t offset = 0;
  auto padded = [](uint64_t n) { return (n + 3) & ~uint64_t(3); };
  while (offset + 12 <= notes.size()) {
    uint64_t name_size = readWord(notes, offset, little_endian);
    uint64_t desc_size = readWord(notes, offset + 4, little_endian);
    uint32_t type = readWord(notes, offset + 8, little_endian);
    uint64_t desc_offset = offset + 12 + padded(name_size);
    if (desc_offset > notes.size() || desc_size > notes.size() - desc_offset)
      return std::nullopt;
    if (type == llvm::ELF::NT_GNU_BUILD_ID) {
      if (desc_size == 0)
        return std::nullopt;
      auto desc = notes.substr(desc_offset, desc_size);
      return std::vector<uint8_t>(desc.bytes_begin(), desc.bytes_end());
    }
    offset = desc_offset + padded(desc_size);
  }
  return std::nullopt;
}

} // namespace

std::vector<uint8_t> textHash(llvm::StringRef bytes, uint64_t text_size) {
  std::vector<uint8_t> hash(16, 0);
  uint64_t limit = std::min<uint64_t>(text_size, 4096);
  for (uint64_t chunk = 0; chunk < limit; chunk += 16)
    for (uint64_t i = 0; i < 16; ++i)
      if (chunk + i < bytes.size())
        hash[i] ^= static_cast<uint8_t>(bytes[chunk + i]);
  return hash;
}

std::vector<uint8_t> gnuBuildId(const ElfImage& image) {
  llvm::StringRef file = image.bytes();
  const ElfSection* note = image.findSection(".note.gnu.build-id");
  if (note && note->type == llvm::ELF::SHT_NOTE && note->hasBytes())
    if (auto id = findBuildId(file.substr(note->offset, note->size), image.isLittleEndian()))
      return *id;
  for (const ElfSegment& segment : image.segments())
    if (segment.type == llvm::ELF::PT_NOTE && segment.offset < file.size())
      if (auto id =
              findBuildId(file.substr(segment.offset, segment.file_size), image.isLittleEndian()))
        return *id;
  return {};
}

std::vector<uint8_t> moduleIdentifier(const ElfImage& image) {
  llvm::StringRef file = image.bytes();
  bool little = image.isLittleEndian();

  // 1. The build-id section. Breakpad (and its client, which computes the id
  // a crash report carries) does not fall back to PT_NOTE when this section
  // exists but holds no build-id: it goes straight to the text hash.
  const ElfSection* note = image.findSection(".note.gnu.build-id");
  bool section_present = note && note->type == llvm::ELF::SHT_NOTE && note->size > 0;
  if (section_present) {
    if (auto id = findBuildId(file.substr(note->offset, note->size), little))
      return *id;
  } else {
    // 2. PT_NOTE segments, in program-header order.
    for (const ElfSegment& segment : image.segments()) {
      if (segment.type != llvm::ELF::PT_NOTE || segment.offset >= file.size())
        continue;
      if (auto id = findBuildId(file.substr(segment.offset, segment.file_size), little))
        return *id;
    }
  }

  // 3. The XOR fold of .text. Like Breakpad, a short final chunk reads the
  // bytes that follow the section in the file.
  const ElfSection* text = image.findSection(".text");
  if (!text || text->type != llvm::ELF::SHT_PROGBITS || text->size == 0)
    text = image.findSection("text");
  if (!text || text->type != llvm::ELF::SHT_PROGBITS || text->size == 0)
    return {};
  uint64_t span = (std::min<uint64_t>(text->size, 4096) + 15) & ~uint64_t(15);
  return textHash(file.substr(text->offset, span), text->size);
}

} // namespace dumpsyms
