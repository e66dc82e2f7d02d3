// A unit's line-number program turned into line records: one record per row
// that covers code, [row.address, next row's address).
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

// Source paths of one unit, numbered in the order first used.
class PathTable {
public:
  uint32_t intern(const std::string& path);
  std::vector<std::string> release() { return std::move(paths_); }

private:
  std::vector<std::string> paths_;
  std::unordered_map<std::string, uint32_t> ids_;
};

class UnitLineTable {
public:
  // `unit` owns the DW_AT_stmt_list (the skeleton for split units); paths
  // are joined to `comp_dir` as llvm-symbolizer joins them.
  UnitLineTable(llvm::DWARFContext& context, llvm::DWARFUnit& unit, std::string comp_dir,
                PathTable& paths, std::vector<std::string>& warnings);

  bool present() const { return table_ != nullptr; }
  // Records sorted by address; SourceLine::file indexes the PathTable.
  std::vector<SourceLine> records();
  // The PathTable index of a DWARF file number (DW_AT_call_file), if valid.
  std::optional<uint32_t> file(uint64_t dwarf_file);

private:
  const llvm::DWARFDebugLine::LineTable* table_ = nullptr;
  std::string comp_dir_;
  PathTable& paths_;
  std::unordered_map<uint64_t, std::optional<uint32_t>> files_;
};

} // namespace dumpsyms
