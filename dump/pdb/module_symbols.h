// Reads one module (compiland) stream of a PDB into the model: a FUNC for
// every S_GPROC32/S_LPROC32 (and their _ID forms), line records from the
// C13 lines subsections, inlined calls from S_INLINESITE records.
//
// The C13 rows give each function's own lines, at an inlined call the
// call's line. With `inlined_code_lines` (-d: INLINE records are written),
// lines inside an inlined call are those of the inlined code instead (from
// the site's annotations), as DWARF line tables give them, and the C13 row
// there becomes the INLINE record's call line; without it a function's
// lines are its own, as Breakpad's and Mozilla's dumpers and
// `llvm-symbolizer --no-inlines` give them.
#pragma once

#include "dump/pdb/inlinee_names.h"
#include "dump/pdb/pdb_file.h"
#include "symbol_file/model/module_builder.h"

#include <functional>
#include <string>
#include <vector>

namespace dumpsyms {

// What a procedure record says of a function, for naming it.
struct ProcedureFacts {
  uint32_t rva = 0;
  llvm::StringRef name;
  bool local = false; // S_LPROC32 and its forms: internal linkage
  llvm::codeview::TypeIndex type;
};

struct ProcedureName {
  std::string name;
  uint64_t parameter_size = 0; // the FUNC's stack parameter size
};

using ProcedureNamer = std::function<ProcedureName(const ProcedureFacts&)>;

struct ModuleSymbolsResult {
  UnitSymbols unit;
  std::vector<std::string> warnings;
};

ModuleSymbolsResult readModuleSymbols(PdbFile& pdb, uint32_t module_index, InlineeNames& inlinees,
                                      const ProcedureNamer& namer, bool inlined_code_lines);

} // namespace dumpsyms
