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
                                      const ProcedureNamer& namer);

} // namespace dumpsyms
