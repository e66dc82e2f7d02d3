// Turns one compilation unit into plain values: its functions (ranges, name,
// lines, inlined calls) and the line rows none of them covers.
#pragma once

#include "dump/dwarf/breakpad_forward_references.h"
#include "dump/dwarf/die_reader.h"
#include "dump/object/demangle.h"
#include "dump/object/symbol_table.h"
#include "symbol_file/model/module_builder.h"

#include <functional>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct ExtractOptions {
  bool inlines = true;
  // Whose spelling function and inline-origin names take (--names): LLVM's,
  // or Breakpad's dump_syms's (dump/dwarf/breakpad_names).
  NameStyle names = NameStyle::Llvm;
  // Names a C++ function whose DWARF has no linkage name (gcc leaves it out
  // in anonymous namespaces, clang -gline-tables-only everywhere): the
  // symbol at its entry carries the full signature. Not in Breakpad's
  // spelling, which names such functions from the DIE tree.
  const SymbolIndex* symbols = nullptr;
  const SupplementaryDwarf* supplementary = nullptr;
  // For Breakpad's spelling: the functions it renames after a DIE they
  // refer forwards to (every unit's, so built before units are extracted).
  const ForwardReferences* forward_references = nullptr;
  // Finds the .dwo file of a split unit: given the skeleton unit, returns the
  // path to load ("" to let LLVM try DW_AT_comp_dir/DW_AT_dwo_name and the
  // .dwp beside the binary).
  std::function<std::string(llvm::DWARFUnit& skeleton)> locate_dwo;
};

class UnitPins;

// Safe to call for different units at the same time when `context` was
// created thread-safe and every unit's DIEs are parsed, or `pins` holds
// `unit` and takes each other unit a reference leads into (LLVM's parser
// is not thread-safe on the same unit). Problems go to `warnings`, each
// naming the unit.
UnitSymbols extractUnit(llvm::DWARFContext& context, llvm::DWARFUnit& unit,
                        const ExtractOptions& options, std::vector<std::string>& warnings,
                        UnitPins* pins = nullptr);

} // namespace dumpsyms
