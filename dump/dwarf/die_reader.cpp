#include "dump/dwarf/die_reader.h"

#include "dump/dwarf/unit_residency.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFTypeUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>

namespace dumpsyms {

using namespace llvm;

DWARFDie DieReader::referenced(DWARFDie die, dwarf::Attribute attribute) const {
  std::optional<DWARFFormValue> value = die.find(attribute);
  if (!value)
    return {};
  switch (value->getForm()) {
  case dwarf::DW_FORM_GNU_ref_alt:
  case dwarf::DW_FORM_ref_sup4:
  case dwarf::DW_FORM_ref_sup8:
    if (!supplementary_ || !supplementary_->context)
      return {};
    return supplementary_->context->getDIEForOffset(value->getRawUValue());
  default:
    break;
  }
  // LLVM parses the target unit's DIEs when it follows the reference, which
  // is safe only while this worker holds that unit: take it first.
  if (pins_) {
    DWARFUnit* unit = die.getDwarfUnit();
    DWARFUnit* target = nullptr;
    if (auto offset = value->getAsDebugInfoReference())
      target = unit->getUnitVector().getUnitForOffset(*offset);
    else if (auto signature = value->getAsSignatureReference())
      target =
          unit->getContext().getTypeUnitForHash(unit->getVersion(), *signature, unit->isDWOUnit());
    if (target && target != unit)
      pins_->hold(*target, /*referenced=*/true);
  }
  return die.getAttributeValueAsReferencedDie(*value);
}

const char* DieReader::string(DWARFDie die,
                              std::initializer_list<dwarf::Attribute> attributes) const {
  for (dwarf::Attribute attribute : attributes) {
    std::optional<DWARFFormValue> value = die.find(attribute);
    if (!value)
      continue;
    dwarf::Form form = value->getForm();
    if (form == dwarf::DW_FORM_GNU_strp_alt || form == dwarf::DW_FORM_strp_sup) {
      if (!supplementary_)
        continue;
      uint64_t offset = value->getRawUValue();
      if (offset >= supplementary_->strings.size() ||
          supplementary_->strings.find('\0', offset) == StringRef::npos)
        continue;
      const char* text = supplementary_->strings.data() + offset;
      if (*text)
        return text;
      continue;
    }
    auto text = value->getAsCString();
    if (!text) {
      consumeError(text.takeError());
      continue;
    }
    if (**text)
      return *text;
  }
  return nullptr;
}

std::optional<uint64_t> unitLanguage(DWARFDie die) {
  DWARFUnit* unit = die.getDwarfUnit();
  if (!unit)
    return std::nullopt;
  return dwarf::toUnsigned(unit->getUnitDIE(true).find(dwarf::DW_AT_language));
}

} // namespace dumpsyms
