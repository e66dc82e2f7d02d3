#include "dump/dwarf/unit_header_repair.h"

#include "dump/object/section_rewriter.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/Dwarf.h>

namespace dumpsyms {

using namespace llvm;

namespace {

class Reader {
public:
  Reader(std::string& bytes, bool little_endian) : bytes_(bytes), little_(little_endian) {}

  uint64_t read(uint64_t offset, unsigned size) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < size; ++i) {
      uint8_t byte = static_cast<uint8_t>(bytes_[offset + i]);
      value |= uint64_t(byte) << (8 * (little_ ? i : size - 1 - i));
    }
    return value;
  }
  void write(uint64_t offset, unsigned size, uint64_t value) {
    for (unsigned i = 0; i < size; ++i)
      bytes_[offset + (little_ ? i : size - 1 - i)] = static_cast<char>(value >> (8 * i));
  }

private:
  std::string& bytes_;
  bool little_;
};

// Why the header at `offset` is unusable, or "" when it is fine.
std::string headerProblem(const Reader& r, uint64_t header, uint64_t unit_end, unsigned offset_size,
                          bool is_type_section, uint64_t abbrev_size) {
  if (header + 2 > unit_end)
    return "too short for a header";
  uint64_t version = r.read(header, 2);
  if (version < 2 || version > 5)
    return "DWARF version " + std::to_string(version);
  uint64_t abbrev_offset, address_size, needed;
  if (version == 5) {
    needed = 2 + 1 + 1 + offset_size;
    if (header + needed > unit_end)
      return "header runs past the unit";
    uint64_t type = r.read(header + 2, 1);
    if (type < dwarf::DW_UT_compile || type > dwarf::DW_UT_split_type)
      return "unit type " + std::to_string(type);
    address_size = r.read(header + 3, 1);
    abbrev_offset = r.read(header + 4, offset_size);
  } else {
    needed = 2 + offset_size + 1 + (is_type_section ? 8 + offset_size : 0);
    if (header + needed > unit_end)
      return "header runs past the unit";
    abbrev_offset = r.read(header + 2, offset_size);
    address_size = r.read(header + 2 + offset_size, 1);
  }
  if (address_size != 4 && address_size != 8 && address_size != 2)
    return "address size " + std::to_string(address_size);
  if (abbrev_offset >= abbrev_size)
    return "abbreviation offset 0x" + utohexstr(abbrev_offset) + " past .debug_abbrev";
  return "";
}

// Scans one section's unit chain; returns true when it changed `bytes`.
bool repairSection(std::string& bytes, bool little_endian, bool is_type_section,
                   uint64_t abbrev_size, uint8_t address_size, const std::string& where,
                   std::vector<std::string>& warnings) {
  Reader r(bytes, little_endian);
  bool changed = false;
  uint64_t offset = 0;
  while (offset + 4 <= bytes.size()) {
    uint64_t length = r.read(offset, 4);
    unsigned offset_size = 4;
    uint64_t header = offset + 4;
    if (length == 0xffffffff) {
      if (offset + 12 > bytes.size())
        break;
      length = r.read(offset + 4, 8);
      offset_size = 8;
      header = offset + 12;
    }
    if ((offset_size == 4 && length >= 0xfffffff0) || length > bytes.size() - header) {
      warnings.push_back(where + ": the unit at offset 0x" + utohexstr(offset) +
                         " has an impossible length (" + std::to_string(length) + " bytes, with " +
                         std::to_string(bytes.size() - header) +
                         " left in the section); it and what follows are not read");
      bytes.resize(offset);
      return true;
    }
    uint64_t unit_end = header + length;
    std::string problem =
        headerProblem(r, header, unit_end, offset_size, is_type_section, abbrev_size);
    if (!problem.empty() && length >= 2 + offset_size + 1) {
      // Blank it: DWARF 4, abbreviations at 0, no DIEs (all zero bytes).
      warnings.push_back(where + ": the unit at offset 0x" + utohexstr(offset) +
                         " has a broken header (" + problem + "); only that unit is lost");
      for (uint64_t i = header; i < unit_end; ++i)
        bytes[i] = 0;
      r.write(header, 2, 4);
      r.write(header + 2 + offset_size, 1, address_size);
      changed = true;
    }
    offset = unit_end;
  }
  return changed;
}

} // namespace

std::unique_ptr<ElfImage> repairUnitHeaders(const ElfImage& image,
                                            std::vector<std::string>& warnings) {
  auto abbrev = image.sectionBytes(".debug_abbrev");
  if (!abbrev || !*abbrev) {
    if (!abbrev)
      consumeError(abbrev.takeError());
    return nullptr;
  }
  std::vector<SectionReplacement> replacements;
  const std::vector<ElfSection>& sections = image.sections();
  for (size_t i = 0; i < sections.size(); ++i) {
    bool is_types = sections[i].name == ".debug_types";
    if (sections[i].name != ".debug_info" && !is_types)
      continue;
    auto contents = image.sectionCopy(sections[i]);
    if (!contents || !*contents) {
      if (!contents)
        consumeError(contents.takeError());
      continue;
    }
    std::string bytes = std::move(**contents);
    if (repairSection(bytes, image.isLittleEndian(), is_types, (*abbrev)->size(),
                      image.is64Bit() ? 8 : 4, image.path() + ": " + sections[i].name, warnings))
      replacements.push_back({i, std::move(bytes), std::nullopt});
  }
  if (replacements.empty())
    return nullptr;
  auto buffer = replaceSections(MemoryBufferRef(image.bytes(), image.path()), replacements);
  if (!buffer) {
    warnings.push_back(image.path() +
                       ": cannot repair unit headers: " + toString(buffer.takeError()));
    return nullptr;
  }
  auto repaired = ElfImage::fromBuffer(std::move(*buffer), image.path());
  if (!repaired) {
    warnings.push_back(toString(repaired.takeError()));
    return nullptr;
  }
  return std::move(*repaired);
}

} // namespace dumpsyms
