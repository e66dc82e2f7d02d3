// Reads one module (compiland) stream of a PDB into the model: a FUNC for
// every S_GPROC32/S_LPROC32 (and their _ID forms), line records from the
// C13 lines subsections, inlined calls from S_INLINESITE records.
//
// Lines inside an inlined call are those of the inlined code (from the
// site's annotations), as DWARF line tables give them: the C13 rows there
// are the call site's, which become the INLINE record's call line.
#pragma once

#include "pdb/inlinee_names.h"
#include "pdb/pdb_file.h"
#include "symbol_writer/module_builder.h"

#include <functional>
#include <string>
#include <vector>

namespace dumpsyms {

// The FUNC name for a procedure at `rva` that the PDB calls `name`.
using ProcedureNamer = std::function<std::string(uint32_t rva, llvm::StringRef name)>;

struct ModuleSymbolsResult {
  UnitSymbols unit;
  std::vector<std::string> warnings;
};

ModuleSymbolsResult readModuleSymbols(PdbFile& pdb, uint32_t module_index, InlineeNames& inlinees,
                                      const ProcedureNamer& namer);

} // namespace dumpsyms
