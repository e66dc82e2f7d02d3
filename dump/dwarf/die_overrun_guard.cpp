#include "dump/dwarf/die_overrun_guard.h"

#include "dump/object/section_rewriter.h"

#include <algorithm>
#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFAbbreviationDeclaration.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFFormValue.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <map>
#include <optional>
#include <vector>

namespace dumpsyms {

using namespace llvm;

namespace {

// What one step of the walk found.
enum class DieWalk {
  Next,    // the DIE ends inside the unit: go on from `offset`
  Overrun, // the DIE does not end inside the unit
  Stop,    // LLVM stops reading the unit here anyway
};

// One DIE at `offset`, as DWARFDebugInfoEntry::extractFast reads it, with
// LLVM's own readers of every form.
DieWalk walkDie(const DWARFUnit& unit, const DWARFAbbreviationDeclarationSet& abbreviations,
                const DataExtractor& data, uint64_t end, uint64_t& offset, bool& null_entry) {
  Error error = Error::success();
  uint64_t code = data.getULEB128(&offset, &error);
  null_entry = false;
  if (error) {
    // LLVM reads a code it cannot decode as 0, a null entry that does not
    // advance: it ends the unit there.
    consumeError(std::move(error));
    return DieWalk::Stop;
  }
  if (code == 0) {
    null_entry = true;
    return DieWalk::Next;
  }
  if (offset > end)
    return DieWalk::Overrun;
  const DWARFAbbreviationDeclaration* declaration =
      abbreviations.getAbbreviationDeclaration(static_cast<uint32_t>(code));
  if (!declaration)
    return DieWalk::Stop;
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
        return DieWalk::Stop; // (LLVM stops reading the unit at this DIE)
      if (offset < before || offset > end)
        return DieWalk::Overrun;
    }
  }
  return offset > end ? DieWalk::Overrun : DieWalk::Next;
}

// The fast way over the DIEs of well-formed units: each abbreviation's
// values as runs of fixed-size bytes between values of a variable size,
// worked out once per unit, and LEB128s and strings skipped on the raw
// bytes. Every DIE it cannot skip within the unit in this way (an overrun,
// an unusual form, a LEB128 longer than 10 bytes) is walked again by
// walkDie, so the answer is always walkDie's; the fast way only saves the
// work where nothing is wrong, which was a tenth of a big dump's CPU time.
class FastSkipper {
public:
  FastSkipper(const DWARFUnit& unit, const DWARFAbbreviationDeclarationSet& abbreviations,
              bool little_endian)
      : unit_(unit), abbreviations_(abbreviations), little_endian_(little_endian) {}

  // The end of the DIE at `offset` (whose code is read here), or nothing
  // when walkDie must see it. `null_entry`: it was a 0 code.
  std::optional<uint64_t> skip(const uint8_t* bytes, uint64_t offset, uint64_t end,
                               bool& null_entry) {
    uint64_t code;
    if (!uleb(bytes, offset, end, code) || code > kMaxCode)
      return std::nullopt;
    null_entry = code == 0;
    if (null_entry)
      return offset;
    const Plan* plan = planFor(static_cast<uint32_t>(code));
    if (!plan)
      return std::nullopt;
    for (const Step& step : plan->steps) {
      if (step.fixed > end - offset)
        return std::nullopt;
      offset += step.fixed;
      uint64_t length = 0;
      switch (step.kind) {
      case Kind::None:
        continue;
      case Kind::Leb:
        if (!uleb(bytes, offset, end, length))
          return std::nullopt;
        continue;
      case Kind::String: {
        const void* nul = std::memchr(bytes + offset, 0, end - offset);
        if (!nul)
          return std::nullopt;
        offset = static_cast<const uint8_t*>(nul) - bytes + 1;
        continue;
      }
      case Kind::BlockLeb:
        if (!uleb(bytes, offset, end, length))
          return std::nullopt;
        break;
      case Kind::Block1:
      case Kind::Block2:
      case Kind::Block4: {
        unsigned width = step.kind == Kind::Block1 ? 1 : step.kind == Kind::Block2 ? 2 : 4;
        if (width > end - offset)
          return std::nullopt;
        for (unsigned k = 0; k < width; ++k) // (the unit's byte order)
          length |= uint64_t(bytes[offset + k]) << (8 * (little_endian_ ? k : width - 1 - k));
        offset += width;
        break;
      }
      }
      if (length > end - offset)
        return std::nullopt;
      offset += length;
    }
    return offset;
  }

private:
  static constexpr uint64_t kMaxCode = 1 << 16;
  enum class Kind : uint8_t { None, Leb, String, BlockLeb, Block1, Block2, Block4 };
  struct Step {
    uint64_t fixed = 0; // bytes before the value of `kind`
    Kind kind = Kind::None;
  };
  struct Plan {
    bool usable = false;
    std::vector<Step> steps;
  };

  // A LEB128 inside [offset, end), moved past; false when it does not end
  // there or is longer than 10 bytes.
  static bool uleb(const uint8_t* bytes, uint64_t& offset, uint64_t end, uint64_t& value) {
    value = 0;
    for (unsigned k = 0; k < 10 && offset + k < end; ++k) {
      uint8_t byte = bytes[offset + k];
      value |= uint64_t(byte & 0x7f) << (7 * k);
      if (!(byte & 0x80)) {
        offset += k + 1;
        return true;
      }
    }
    return false;
  }

  const Plan* planFor(uint32_t code) {
    if (code >= plans_.size())
      plans_.resize(code + 1);
    std::optional<Plan>& slot = plans_[code];
    if (!slot) {
      slot.emplace();
      if (const DWARFAbbreviationDeclaration* declaration =
              abbreviations_.getAbbreviationDeclaration(code))
        *slot = makePlan(*declaration);
    }
    return slot->usable ? &*slot : nullptr;
  }

  Plan makePlan(const DWARFAbbreviationDeclaration& declaration) const {
    Plan plan;
    Step step;
    for (const auto& attribute : declaration.attributes()) {
      if (std::optional<int64_t> size = attribute.getByteSize(unit_)) {
        if (*size < 0)
          return plan;
        step.fixed += static_cast<uint64_t>(*size);
        continue;
      }
      switch (attribute.Form) {
      case dwarf::DW_FORM_udata:
      case dwarf::DW_FORM_sdata:
      case dwarf::DW_FORM_ref_udata:
      case dwarf::DW_FORM_strx:
      case dwarf::DW_FORM_addrx:
      case dwarf::DW_FORM_rnglistx:
      case dwarf::DW_FORM_loclistx:
      case dwarf::DW_FORM_GNU_addr_index:
      case dwarf::DW_FORM_GNU_str_index:
        step.kind = Kind::Leb;
        break;
      case dwarf::DW_FORM_string:
        step.kind = Kind::String;
        break;
      case dwarf::DW_FORM_block:
      case dwarf::DW_FORM_exprloc:
        step.kind = Kind::BlockLeb;
        break;
      case dwarf::DW_FORM_block1:
        step.kind = Kind::Block1;
        break;
      case dwarf::DW_FORM_block2:
        step.kind = Kind::Block2;
        break;
      case dwarf::DW_FORM_block4:
        step.kind = Kind::Block4;
        break;
      default:
        return plan; // (DW_FORM_indirect, and forms LLVM skips its own way)
      }
      plan.steps.push_back(step);
      step = Step();
    }
    plan.steps.push_back(step);
    plan.usable = true;
    return plan;
  }

  const DWARFUnit& unit_;
  const DWARFAbbreviationDeclarationSet& abbreviations_;
  bool little_endian_;
  std::vector<std::optional<Plan>> plans_;
};

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
  const bool fast = end <= data.getData().size();
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.getData().data());
  FastSkipper skipper(unit, *abbreviations, data.isLittleEndian());
  uint64_t offset = unit.getOffset() + unit.getHeaderSize();
  while (offset < end) {
    const uint64_t die = offset;
    bool null_entry = false;
    if (std::optional<uint64_t> next =
            fast ? skipper.skip(bytes, offset, end, null_entry) : std::nullopt) {
      offset = *next;
    } else {
      offset = die;
      switch (walkDie(unit, *abbreviations, data, end, offset, null_entry)) {
      case DieWalk::Next:
        break;
      case DieWalk::Overrun:
        return die;
      case DieWalk::Stop:
        return std::nullopt;
      }
    }
    if (unit_die_only && !null_entry)
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
