#include "dump/pe/pe_header_check.h"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <vector>

namespace dumpsyms {

namespace {

struct Bytes {
  llvm::StringRef data;
  bool has(uint64_t offset, uint64_t size) const {
    return offset <= data.size() && size <= data.size() - offset;
  }
  uint32_t u16(uint64_t at) const {
    return uint8_t(data[at]) | (uint32_t(uint8_t(data[at + 1])) << 8);
  }
  uint32_t u32(uint64_t at) const { return u16(at) | (u16(at + 2) << 16); }
};

struct Section {
  uint32_t virtual_address, virtual_size, raw_size, raw_offset;
};

// Data directories LLVM follows while opening a file.
constexpr unsigned kFollowed[] = {0 /*export*/,
                                  1 /*import*/,
                                  5 /*base relocations*/,
                                  6 /*debug*/,
                                  9 /*TLS*/,
                                  10 /*load config*/,
                                  13 /*delay import*/};

} // namespace

std::string peHeaderProblem(llvm::StringRef data, std::vector<uint64_t>* unbacked) {
  Bytes b{data};
  if (!b.has(0, 64) || data.substr(0, 2) != "MZ")
    return "no DOS header";
  uint64_t pe = b.u32(0x3c);
  if (!b.has(pe, 24) || data.substr(pe, 4) != llvm::StringRef("PE\0\0", 4))
    return "no PE signature where the DOS header points (truncated or corrupt)";
  uint64_t coff = pe + 4;
  uint32_t sections = b.u16(coff + 2);
  uint64_t symbols_at = b.u32(coff + 8), symbol_count = b.u32(coff + 12);
  uint32_t optional_size = b.u16(coff + 16);
  uint64_t optional = coff + 20;
  if (!b.has(optional, optional_size))
    return "the optional header runs past the end of the file (truncated)";
  if (optional_size < 2)
    return "no optional header: not an image";
  uint32_t magic = b.u16(optional);
  uint64_t directories_at;
  if (magic == 0x10b)
    directories_at = 96;
  else if (magic == 0x20b)
    directories_at = 112;
  else
    return fmt::format("unknown optional header magic {:#x}", magic);
  if (optional_size < directories_at)
    return "the optional header is too small for its kind";
  uint64_t directory_count = b.u32(optional + directories_at - 4);
  if (directories_at + directory_count * 8 > optional_size)
    return "the data directories run past the optional header";
  uint64_t table = optional + optional_size;
  if (!b.has(table, uint64_t(sections) * 40))
    return "the section table runs past the end of the file (truncated)";
  std::vector<Section> list;
  for (uint32_t i = 0; i < sections; ++i) {
    uint64_t at = table + uint64_t(i) * 40;
    Section s{b.u32(at + 12), b.u32(at + 8), b.u32(at + 16), b.u32(at + 20)};
    if (s.raw_size && !b.has(s.raw_offset, s.raw_size))
      return fmt::format("section {} lies past the end of the file (truncated)", i + 1);
    list.push_back(s);
  }
  if (symbols_at && !b.has(symbols_at, symbol_count * 18 + 4))
    return "the COFF symbol table lies past the end of the file (truncated)";
  for (unsigned index : kFollowed) {
    if (index >= directory_count)
      continue;
    uint64_t at = optional + directories_at + index * 8;
    uint64_t rva = b.u32(at), size = b.u32(at + 4);
    if (rva == 0)
      continue;
    bool inside = false, dropped = false;
    for (const Section& s : list) {
      if (rva >= s.virtual_address && rva - s.virtual_address + size <= s.raw_size)
        inside = true;
      uint64_t extent = std::max(s.virtual_size, s.raw_size);
      if (s.raw_size == 0 && rva >= s.virtual_address && rva - s.virtual_address < extent)
        dropped = true;
    }
    if (!inside && dropped && unbacked) {
      unbacked->push_back(at);
      continue;
    }
    if (!inside)
      return fmt::format("data directory {} ([{:#x}, +{:#x})) is not inside a section's file data",
                         index, rva, size);
  }
  return "";
}

} // namespace dumpsyms
