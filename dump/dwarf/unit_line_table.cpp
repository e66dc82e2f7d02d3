#include "dump/dwarf/unit_line_table.h"

#include "dump/dwarf/line_table_header_check.h"

#include <algorithm>

namespace dumpsyms {

using namespace llvm;

uint32_t PathTable::intern(const std::string& path) {
  auto [it, inserted] = ids_.try_emplace(path, paths_.size());
  if (inserted)
    paths_.push_back(path);
  return it->second;
}

UnitLineTable::UnitLineTable(DWARFContext& context, DWARFUnit& unit, std::string comp_dir,
                             PathTable& paths, std::vector<std::string>& warnings)
    : comp_dir_(std::move(comp_dir)), paths_(paths) {
  auto report = [&](Error error) {
    warnings.push_back("line table of the unit at offset 0x" + utohexstr(unit.getOffset()) + ": " +
                       toString(std::move(error)));
  };
  // LLVM parses the header it is given without bounds on its forms: check
  // it first, and leave out a table LLVM would misread.
  auto stmt_list = dwarf::toSectionOffset(unit.getUnitDIE().find(dwarf::DW_AT_stmt_list));
  if (!stmt_list)
    return;
  LineTableLocation where{unit.getLineSection().Data, *stmt_list + unit.getLineTableOffset(),
                          unit.isLittleEndian()};
  if (std::string problem = lineTableHeaderProblem(where); !problem.empty()) {
    warnings.push_back("line table at offset 0x" + utohexstr(where.offset) + " of the unit at 0x" +
                       utohexstr(unit.getOffset()) + " is damaged (" + problem +
                       "): its line records are left out");
    return;
  }
  auto table = context.getLineTableForUnit(&unit, report);
  if (table)
    table_ = *table;
  else
    report(table.takeError());
}

std::optional<uint32_t> UnitLineTable::file(uint64_t dwarf_file) {
  if (!table_)
    return std::nullopt;
  auto found = files_.find(dwarf_file);
  if (found != files_.end())
    return found->second;
  std::string path;
  std::optional<uint32_t> id;
  if (table_->getFileNameByIndex(dwarf_file, comp_dir_,
                                 DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, path) &&
      !path.empty())
    id = paths_.intern(path);
  files_.emplace(dwarf_file, id);
  return id;
}

std::vector<SourceLine> UnitLineTable::records() {
  std::vector<SourceLine> out;
  if (!table_)
    return out;
  const auto& rows = table_->Rows;
  for (const auto& sequence : table_->Sequences) {
    // A sequence at address 0 holds code the linker discarded.
    if (sequence.LowPC == 0)
      continue;
    for (uint64_t i = sequence.FirstRowIndex; i + 1 < sequence.LastRowIndex && i + 1 < rows.size();
         ++i) {
      const auto& row = rows[i];
      uint64_t next = rows[i + 1].Address.Address;
      // Of several rows at one address the last one holds (as in LLVM's
      // lookup); the earlier ones are empty and skipped here.
      if (next <= row.Address.Address)
        continue;
      std::optional<uint32_t> path = file(row.File);
      if (!path)
        path = paths_.intern("<unknown>");
      out.push_back({row.Address.Address, next - row.Address.Address, row.Line, *path});
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SourceLine& a, const SourceLine& b) { return a.address < b.address; });
  return out;
}

} // namespace dumpsyms
