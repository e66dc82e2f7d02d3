// Reads the DIE attributes that name functions, following what LLVM does
// not follow by itself: references and strings that dwz moved into a
// supplementary file. Shared by both spellings of names.
#pragma once

#include <initializer_list>
#include <llvm/ADT/StringRef.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <optional>

namespace dumpsyms {

// The supplementary file dwz moved shared DIEs and strings into
// (.gnu_debugaltlink / .debug_sup): LLVM does not follow DW_FORM_GNU_ref_alt,
// DW_FORM_GNU_strp_alt or their DWARF 5 forms, so the namers do.
struct SupplementaryDwarf {
  llvm::DWARFContext* context = nullptr;
  llvm::StringRef strings; // its .debug_str
};

class UnitPins;

class DieReader {
public:
  // `pins`, when units are parsed on demand: a reference into another unit
  // holds that unit's DIEs for as long as `pins` lives.
  explicit DieReader(const SupplementaryDwarf* supplementary, UnitPins* pins = nullptr)
      : supplementary_(supplementary), pins_(pins) {}

  // The DIE `attribute` refers to, in this file or the supplementary one;
  // an invalid DIE when there is none.
  llvm::DWARFDie referenced(llvm::DWARFDie die, llvm::dwarf::Attribute attribute) const;

  // The first of `attributes` the DIE has with a non-empty string value.
  const char* string(llvm::DWARFDie die,
                     std::initializer_list<llvm::dwarf::Attribute> attributes) const;

private:
  const SupplementaryDwarf* supplementary_;
  UnitPins* pins_;
};

// The DW_AT_language of the unit `die` belongs to.
std::optional<uint64_t> unitLanguage(llvm::DWARFDie die);

} // namespace dumpsyms
