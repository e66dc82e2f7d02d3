#include "dwarf/die_overrun_guard.h"

#include "object/section_rewriter.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>
#include <llvm/DebugInfo/DWARF/DWARFAbbreviationDeclaration.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <map>
#include <optional>

namespace dumpsyms {

using namespace llvm;

namespace {

// The offset of the first DIE of `unit` whose attributes do not end within
// the unit, walking as DWARFDebugInfoEntry::extractFast does; std::nullopt
// when there is none before the point where LLVM stops reading the unit
// anyway (an unknown abbreviation, a value it cannot skip).
std::optional<uint64_t> firstOverrun(const DWARFUnit& unit, bool unit_die_only = false) {
  const DWARFAbbreviationDeclarationSet* abbreviations = unit.getAbbreviations();
  if (!abbreviations)
    return std::nullopt;
  // (LLVM made sure the unit lies within its section)
  DataExtractor data = unit.getDebugInfoExtractor();
  const uint64_t end = unit.getNextUnitOffset();
  uint64_t offset = unit.getOffset() + unit.getHeaderSize();
  while (offset < end) {
    const uint64_t die = offset;
    Error error = Error::success();
    uint64_t code = data.getULEB128(&offset, &error);
    if (error) {
      // LLVM reads a code it cannot decode as 0, a null entry that does not
      // advance: it ends the unit there.
      consumeError(std::move(error));
      return std::nullopt;
    }
    if (code == 0)
      continue;
    if (offset > end)
      return die;
    const DWARFAbbreviationDeclaration* declaration =
        abbreviations->getAbbreviationDeclaration(static_cast<uint32_t>(code));
    if (!declaration)
      return std::nullopt;
    if (std::optional<size_t> all = declaration->getFixedAttributesByteSize(unit)) {
      offset += *all;
    } else {
      // Each value starts inside the unit (checked after the one before),
      // and no skip may wrap the offset around (a 64-bit block length can).
      for (const auto& attribute : declaration->attributes()) {
        const uint64_t before = offset;
        if (std::optional<int64_t> size = attribute.getByteSize(unit))
          offset += static_cast<uint64_t>(*size);
        else if (!DWARFFormValue::skipValue(attribute.Form, data, &offset, unit.getFormParams()))
          return std::nullopt; // (LLVM stops reading the unit at this DIE)
        if (offset < before || offset > end)
          return die;
      }
    }
    if (offset > end)
      return die;
    if (unit_die_only)
      break;
  }
  return std::nullopt;
}

std::string cutWarning(const std::string& path, const std::string& section, uint64_t unit,
                       uint64_t die) {
  return path + ": " + section + ": the DIE at offset 0x" + utohexstr(die, /*LowerCase=*/true) +
         " runs past the end of its unit (offset 0x" + utohexstr(unit, /*LowerCase=*/true) +
         "); it and the rest of the unit are not read";
}

struct Cut {
  uint64_t unit = 0;
  uint64_t die = 0;
  uint64_t end = 0;
};

// The sections' cuts, by the address of the bytes LLVM reads.
using Cuts = std::map<const char*, std::pair<std::string, std::vector<Cut>>>;

void findCuts(DWARFContext::unit_iterator_range units, const char* name, Cuts& cuts) {
  for (const auto& unit : units)
    if (std::optional<uint64_t> die = firstOverrun(*unit)) {
      auto& entry = cuts[unit->getInfoSection().Data.data()];
      entry.first = name;
      entry.second.push_back({unit->getOffset(), *die, unit->getNextUnitOffset()});
    }
}

} // namespace

DieOverrunCut cutOverrunningDies(const ElfImage& image, DWARFContext& context,
                                 std::vector<std::string>& warnings) {
  DieOverrunCut result;
  Cuts cuts;
  findCuts(context.info_section_units(), ".debug_info", cuts);
  findCuts(context.types_section_units(), ".debug_types", cuts);
  if (cuts.empty())
    return result;
  result.needed = true;

  std::vector<SectionReplacement> replacements;
  const std::vector<ElfSection>& sections = image.sections();
  for (const auto& [data, entry] : cuts) {
    const auto& [name, section_cuts] = entry;
    // The image's section LLVM read: the same bytes (a compressed section
    // LLVM inflated itself has other bytes at another address).
    std::optional<size_t> index;
    std::string bytes;
    for (size_t i = 0; i < sections.size() && !index; ++i) {
      if (sections[i].name != name)
        continue;
      auto contents = image.sectionBytes(sections[i]);
      if (!contents) {
        consumeError(contents.takeError());
        continue;
      }
      if (*contents && (**contents).data() == data) {
        index = i;
        bytes = (**contents).str();
      }
    }
    if (!index) {
      for (size_t i = 0; i < sections.size() && !index; ++i) {
        if (sections[i].name != name)
          continue;
        auto contents = image.sectionCopy(sections[i]);
        if (!contents) {
          consumeError(contents.takeError());
          continue;
        }
        const Cut& last = section_cuts.back();
        if (*contents && (**contents).size() >= last.end &&
            StringRef(**contents).substr(last.unit, last.end - last.unit) ==
                StringRef(data + last.unit, last.end - last.unit)) {
          index = i;
          bytes = std::move(**contents);
        }
      }
    }
    if (!index) {
      warnings.push_back(image.path() + ": " + name +
                         ": DIEs run past their unit, and the section cannot be rewritten");
      return result;
    }
    for (const Cut& cut : section_cuts) {
      warnings.push_back(cutWarning(image.path(), name, cut.unit, cut.die));
      std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(cut.die),
                bytes.begin() + static_cast<std::ptrdiff_t>(cut.end), '\0');
    }
    replacements.push_back({*index, std::move(bytes), std::nullopt});
  }
  auto buffer = replaceSections(MemoryBufferRef(image.bytes(), image.path()), replacements);
  if (!buffer) {
    warnings.push_back(image.path() +
                       ": cannot cut the overrunning DIEs: " + toString(buffer.takeError()));
    return result;
  }
  auto cut = ElfImage::fromBuffer(std::move(*buffer), image.path());
  if (!cut) {
    warnings.push_back(toString(cut.takeError()));
    return result;
  }
  result.image = std::move(*cut);
  return result;
}

void DieCutter::check(const DWARFUnit& unit, bool unit_die_only) {
  std::optional<uint64_t> die = firstOverrun(unit, unit_die_only);
  if (!die)
    return;
  // The dump's own copy (heap memory LLVM was handed read-only): the DIE
  // and the rest of the unit become null entries.
  StringRef bytes = unit.getInfoSection().Data;
  uint64_t end = std::min<uint64_t>(unit.getNextUnitOffset(), bytes.size());
  if (*die < end)
    std::fill(const_cast<char*>(bytes.data()) + *die, const_cast<char*>(bytes.data()) + end, '\0');
  std::lock_guard<std::mutex> lock(mutex_);
  warnings_.push_back(
      {unit.getOffset(),
       cutWarning(path_,
                  unit.isTypeUnit() && unit.getVersion() < 5 ? ".debug_types" : ".debug_info",
                  unit.getOffset(), *die)});
}

std::vector<std::string> DieCutter::takeWarnings() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::stable_sort(warnings_.begin(), warnings_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (auto& [offset, warning] : warnings_)
    out.push_back(std::move(warning));
  warnings_.clear();
  return out;
}

} // namespace dumpsyms
