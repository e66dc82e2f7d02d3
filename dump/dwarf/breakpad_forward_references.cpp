#include "dump/dwarf/breakpad_forward_references.h"

#include "common/limits/input_limits.h"

#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFObject.h>

namespace dumpsyms {

using namespace llvm;

namespace {

bool isScope(dwarf::Tag tag) {
  return tag == dwarf::DW_TAG_namespace || tag == dwarf::DW_TAG_class_type ||
         tag == dwarf::DW_TAG_structure_type || tag == dwarf::DW_TAG_union_type;
}

// Whether Breakpad's DIE walk reaches a subprogram: from the unit through
// namespaces, classes, structures, unions and modules, and through the
// classes local to a function; never into lexical blocks or a function
// nested directly in another. (Scopes nested deeper than
// limits::kMaxScopeDepth, which only corrupt input has, count as not
// walked: each function's walk up stays short.)
bool walkedByBreakpad(DWARFDie subprogram) {
  dwarf::Tag child = dwarf::DW_TAG_subprogram;
  uint32_t depth = 0;
  for (DWARFDie parent = subprogram.getParent(); parent && depth < limits::kMaxScopeDepth;
       parent = parent.getParent(), ++depth) {
    dwarf::Tag tag = parent.getTag();
    if (tag == dwarf::DW_TAG_compile_unit || tag == dwarf::DW_TAG_skeleton_unit)
      return child == dwarf::DW_TAG_subprogram || isScope(child) || child == dwarf::DW_TAG_module;
    bool from_scope = (isScope(tag) || tag == dwarf::DW_TAG_module) &&
                      (child == dwarf::DW_TAG_subprogram || isScope(child));
    bool from_function =
        tag == dwarf::DW_TAG_subprogram && isScope(child) && child != dwarf::DW_TAG_namespace;
    if (!from_scope && !from_function)
      return false;
    child = tag;
  }
  return false;
}

// Whether Breakpad can read a DW_AT_ranges list: it wants .debug_ranges
// up to DWARF 4, and .debug_rnglists and .debug_addr from DWARF 5 on, which
// gcc 12 does not write without split DWARF (so Breakpad loses gcc's
// functions split into hot and cold parts). Split units are taken as read.
bool rangesReadByBreakpad(DWARFUnit& unit) {
  if (unit.isDWOUnit())
    return true;
  const DWARFObject& sections = unit.getContext().getDWARFObj();
  if (unit.getVersion() <= 4)
    return !sections.getRangesSection().Data.empty();
  return !sections.getRnglistsSection().Data.empty() && !sections.getAddrSection().Data.empty();
}

// Breakpad keeps a function only when its ranges cover some bytes and the
// first range as listed does not start at 0.
bool keptByBreakpad(DWARFDie function) {
  if (function.find(dwarf::DW_AT_ranges) && !rangesReadByBreakpad(*function.getDwarfUnit()))
    return false;
  auto ranges = function.getAddressRanges();
  if (!ranges) {
    consumeError(ranges.takeError());
    return false;
  }
  uint64_t size = 0;
  for (const DWARFAddressRange& range : *ranges)
    size += range.HighPC - range.LowPC;
  return size != 0 && ranges->front().LowPC != 0;
}

} // namespace

DWARFDie forwardReference(DWARFDie function, const DieReader& reader) {
  DWARFDie forward;
  for (const DWARFAttribute& attribute : function.attributes()) {
    if (attribute.Attr != dwarf::DW_AT_specification &&
        attribute.Attr != dwarf::DW_AT_abstract_origin)
      continue;
    DWARFDie target = reader.referenced(function, attribute.Attr);
    if (target && target.getTag() == dwarf::DW_TAG_subprogram &&
        &target.getDwarfUnit()->getContext() == &function.getDwarfUnit()->getContext() &&
        target.getDwarfUnit()->isDWOUnit() == function.getDwarfUnit()->isDWOUnit() &&
        target.getOffset() > function.getOffset())
      forward = target;
  }
  return forward;
}

void ForwardReferences::addUnit(DWARFUnit& unit, const DieReader& reader) {
  for (const DWARFDebugInfoEntry& entry : unit.dies()) {
    DWARFDie die(&unit, &entry);
    if (die.getTag() != dwarf::DW_TAG_subprogram)
      continue;
    DWARFDie target = forwardReference(die, reader);
    if (target && walkedByBreakpad(die) && keptByBreakpad(die))
      last_referrer_[target.getDebugInfoEntry()] = die.getDebugInfoEntry();
  }
}

bool ForwardReferences::renames(DWARFDie target, DWARFDie function) const {
  auto found = last_referrer_.find(target.getDebugInfoEntry());
  return found != last_referrer_.end() && found->second == function.getDebugInfoEntry();
}

} // namespace dumpsyms
