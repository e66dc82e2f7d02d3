// Turns one compilation unit into plain values: its functions (ranges, name,
// lines, inlined calls) and the line rows none of them covers.
#pragma once

#include "object/symbol_table.h"
#include "symbol_writer/module_builder.h"

#include <functional>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <string>
#include <vector>

namespace dumpsyms {

// The supplementary file dwz moved shared DIEs and strings into
// (.gnu_debugaltlink / .debug_sup): LLVM does not follow DW_FORM_GNU_ref_alt,
// DW_FORM_GNU_strp_alt or their DWARF 5 forms, so the namer does.
struct SupplementaryDwarf {
  llvm::DWARFContext* context = nullptr;
  llvm::StringRef strings; // its .debug_str
};

struct ExtractOptions {
  bool inlines = true;
  // Names a C++ function whose DWARF has no linkage name (gcc leaves it out
  // in anonymous namespaces, clang -gline-tables-only everywhere): the
  // symbol at its entry carries the full signature.
  const SymbolIndex* symbols = nullptr;
  const SupplementaryDwarf* supplementary = nullptr;
  // Finds the .dwo file of a split unit: given the skeleton unit, returns the
  // path to load ("" to let LLVM try DW_AT_comp_dir/DW_AT_dwo_name and the
  // .dwp beside the binary).
  std::function<std::string(llvm::DWARFUnit& skeleton)> locate_dwo;
};

// Safe to call for different units at the same time when `context` was
// created thread-safe. Problems go to `warnings`, each naming the unit.
UnitSymbols extractUnit(llvm::DWARFContext& context, llvm::DWARFUnit& unit,
                        const ExtractOptions& options, std::vector<std::string>& warnings);

} // namespace dumpsyms
