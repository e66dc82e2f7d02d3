#include "cfi/frame_section_guard.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/DataExtractor.h>
#include <set>

namespace dumpsyms {

FramePrefix wellLinkedFramePrefix(llvm::StringRef bytes, bool is_eh_frame, bool little_endian) {
  // (Every read below is within the section: checked before it is made.)
  llvm::DataExtractor data(bytes, little_endian, 8);
  auto word = [&](uint64_t at, unsigned size) { return data.getUnsigned(&at, size); };
  auto hex = [](uint64_t value) { return llvm::utohexstr(value); };
  std::set<uint64_t> cies;
  uint64_t offset = 0;
  while (offset < bytes.size()) {
    if (bytes.size() - offset < 4)
      return {offset, "the section ends inside the entry at offset 0x" + hex(offset)};
    uint64_t length = word(offset, 4);
    unsigned id_size = 4;
    uint64_t id_at = offset + 4;
    if (length == 0xffffffff) { // 64-bit DWARF
      if (offset + 12 > bytes.size())
        return {offset, "the section ends inside the entry at offset 0x" + hex(offset)};
      length = word(offset + 4, 8);
      id_size = 8;
      id_at = offset + 12;
    }
    if (length == 0) {
      if (is_eh_frame)
        break; // the terminator
      offset = id_at;
      continue;
    }
    // LLVM 19 reads an entry that runs past the section's end with
    // out-of-bounds reads of its own: such an entry ends the section too.
    if (length > bytes.size() - id_at || length < id_size)
      return {offset, "the entry at offset 0x" + hex(offset) + " claims 0x" + hex(length) +
                          " bytes, past the end of the section; the entries from it on are not "
                          "read"};
    uint64_t id = word(id_at, id_size);
    uint64_t cie_id = is_eh_frame ? 0 : (id_size == 4 ? 0xffffffff : UINT64_MAX);
    if (id == cie_id) {
      cies.insert(offset);
    } else {
      // .eh_frame: the distance back from this field; .debug_frame: an offset.
      bool backwards = is_eh_frame ? id <= id_at : id < offset;
      uint64_t cie = is_eh_frame ? id_at - id : id;
      if (!backwards || !cies.count(cie))
        return {offset, "the FDE at offset 0x" + hex(offset) + " names no CIE before it (CIE " +
                            "pointer 0x" + hex(id) + "); the entries from it on are not read"};
    }
    offset = id_at + length;
  }
  return {bytes.size(), ""};
}

} // namespace dumpsyms
