#include "dwarf/die_reader.h"

#include <llvm/BinaryFormat/Dwarf.h>
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
    return die.getAttributeValueAsReferencedDie(*value);
  }
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
