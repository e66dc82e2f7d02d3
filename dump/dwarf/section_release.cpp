#include "dump/dwarf/section_release.h"

#include <algorithm>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugAbbrev.h>
#include <llvm/DebugInfo/DWARF/DWARFObject.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Support/DataExtractor.h>
#include <sys/mman.h>
#include <unistd.h>

namespace dumpsyms {

using namespace llvm;

namespace {

// The whole pages inside [start, start + size): the pages at either end
// may hold bytes of a neighbour that is still read.
void releasePages(const char* start, uint64_t size) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = (reinterpret_cast<uintptr_t>(start) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(start) + size) & ~(page - 1);
  if (end > first)
    madvise(reinterpret_cast<void*>(first), end - first, MADV_DONTNEED);
}

bool refersAcrossUnits(dwarf::Form form) {
  return form == dwarf::DW_FORM_ref_addr || form == dwarf::DW_FORM_ref_sig8 ||
         form == dwarf::DW_FORM_indirect;
}

} // namespace

bool mayReferAcrossUnits(const std::vector<DWARFUnit*>& units) {
  for (const DWARFUnit* unit : units) {
    const DWARFAbbreviationDeclarationSet* abbreviations = unit->getAbbreviations();
    if (!abbreviations)
      return true;
    for (const DWARFAbbreviationDeclaration& declaration : *abbreviations)
      for (const auto& spec : declaration.attributes())
        if (refersAcrossUnits(spec.Form))
          return true;
  }
  return false;
}

void releaseUnitBytes(DWARFContext& context, const DWARFUnit& unit, const uint64_t* line_table,
                      bool keep_header) {
  StringRef info = unit.getInfoSection().Data;
  uint64_t end = std::min<uint64_t>(unit.getNextUnitOffset(), info.size());
  uint64_t start = unit.getOffset() + (keep_header ? unit.getHeaderSize() : 0);
  if (start < end)
    releasePages(info.data() + start, end - start);
  if (!line_table)
    return;
  StringRef lines = context.getDWARFObj().getLineSection().Data;
  DataExtractor data(lines, context.isLittleEndian(), 0);
  uint64_t offset = *line_table;
  uint64_t length = data.getU32(&offset, nullptr);
  if (length == 0xffffffff)
    length = data.getU64(&offset, nullptr);
  else if (length >= 0xfffffff0)
    return; // a reserved length: not a table we know the end of
  if (offset > lines.size() || length > lines.size() - offset)
    return;
  releasePages(lines.data() + *line_table, offset + length - *line_table);
}

} // namespace dumpsyms
