#include "dump/cfi/frame_section_guard.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/DataExtractor.h>
#include <set>

namespace dumpsyms {

namespace {

// What is wrong with the CIE whose version byte is at `at` (its entry ends
// at `end`), or "".
std::string cieProblem(llvm::StringRef bytes, uint64_t at, uint64_t end, bool is_eh_frame) {
  if (at >= end)
    return "has no version";
  unsigned version = static_cast<uint8_t>(bytes[at]);
  // .eh_frame: 1 (and 3, from some producers); .debug_frame: 1, 3 and 4.
  if (version != 1 && version != 3 && (is_eh_frame || version != 4))
    return "has version " + std::to_string(version);
  if (version < 4)
    return "";
  size_t nul = bytes.find('\0', at + 1);
  if (nul == llvm::StringRef::npos || nul + 2 >= end)
    return "ends inside its header";
  unsigned address_size = static_cast<uint8_t>(bytes[nul + 1]);
  unsigned segment_size = static_cast<uint8_t>(bytes[nul + 2]);
  if ((address_size != 4 && address_size != 8) || segment_size != 0)
    return "gives an address size of " + std::to_string(address_size) +
           " and a segment selector size of " + std::to_string(segment_size);
  return "";
}

} // namespace

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
      // LLVM 19 reads DW_CFA_set_loc's address with the CIE's address size,
      // and a size its reader has no case for (0, say, from a version that
      // .eh_frame never had) sends it to an unreachable branch that jumps
      // anywhere: such a CIE ends the section too.
      if (std::string problem = cieProblem(bytes, id_at + id_size, id_at + length, is_eh_frame);
          !problem.empty())
        return {offset, "the CIE at offset 0x" + hex(offset) + " " + problem +
                            "; the entries from it on are not read"};
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
