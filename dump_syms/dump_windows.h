// The flow for a Windows module: a PDB (with the PE beside it when there is
// one), or a PE whose CodeView record leads to its PDB. Functions, lines,
// inlined calls, publics and STACK WIN come from the PDB; INFO CODE_ID and
// the x64 STACK CFI from the PE.
#pragma once

#include "dump_syms/dump_module.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

// True when `path` starts like a PDB or a PE file (what this flow reads).
bool isWindowsInput(const std::string& path);

llvm::Expected<Module> dumpWindowsModule(const Options& options, Diagnostics& diagnostics,
                                         DumpFacts* facts);

} // namespace dumpsyms
