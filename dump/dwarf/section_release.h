// Gives back the memory of DWARF bytes no unit will read again: on a big
// debug file the inflated sections are the largest thing left once DIEs
// are freed unit by unit (docs/MEMORY.md).
#pragma once

#include <cstdint>
#include <vector>

namespace llvm {
class DWARFContext;
class DWARFUnit;
} // namespace llvm

namespace dumpsyms {

// Whether a DIE of these units may refer into another unit of the same
// file (DW_FORM_ref_addr, DW_FORM_ref_sig8, or a form given in the DIE,
// DW_FORM_indirect), judged from their abbreviations, which must be read.
// When none may, a unit's bytes are dead once the unit is extracted.
bool mayReferAcrossUnits(const std::vector<llvm::DWARFUnit*>& units);

// The unit's .debug_info bytes, and its line table's .debug_line bytes
// (`line_table`, when no other unit reads that table), will not be read
// again: the whole pages among them leave the resident set. Their contents
// are lost when the section was inflated into memory. `keep_header`: but
// for the unit's header, which a context made later parses again.
void releaseUnitBytes(llvm::DWARFContext& context, const llvm::DWARFUnit& unit,
                      const uint64_t* line_table, bool keep_header = false);

} // namespace dumpsyms
