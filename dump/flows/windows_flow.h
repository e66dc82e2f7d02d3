// The flow for a Windows module: a PDB (with the PE beside it when there is
// one), or a PE whose CodeView record leads to its PDB. Functions, lines,
// inlined calls, publics and STACK WIN come from the PDB; INFO CODE_ID and
// the x64 STACK CFI from the PE. A PE without a PDB goes on to the PE/DWARF
// flow (MinGW builds: dump/flows/pe_dwarf_flow) or, with neither DWARF nor
// symbols, to the PE-only flow.
#pragma once

#include "dump/flows/dump_module.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

class PdbFile;
class PeImage;
struct CodeViewRecord;

// MODULE / INFO of a PDB (and the PE it belongs to, if at hand).
llvm::Expected<Module> windowsIdentity(const PdbFile& pdb, const PeImage* pe);
// MODULE / INFO as the PE gives them, without its PDB: what a symbol store
// files the PE's dump under (the CodeView id, else 33 zeros; the PDB's name,
// else the PE's).
llvm::Expected<Module> peIdentity(const PeImage& pe);
// peIdentity with the command line's -b and -n: the header of a dump of
// the PE without its PDB.
llvm::Expected<Module> peDumpHeader(const PeImage& pe, const Options& options);

// Whether `pdb` is the one the PE's CodeView record names (GUID and age).
bool pdbBelongsTo(const PdbFile& pdb, const CodeViewRecord& record);

// The dump of a PDB already open, with the PE it belongs to when one is at
// hand (`pe` may be null): what dumpWindowsModule does once it has found
// its inputs.
llvm::Expected<Module> dumpPdbModule(PdbFile& pdb, const PeImage* pe, const Options& options,
                                     Diagnostics& diagnostics);

// True when `path` starts like a PDB or a PE file (what this flow reads).
bool isWindowsInput(const std::string& path);

llvm::Expected<Module> dumpWindowsModule(const Options& options, Diagnostics& diagnostics,
                                         const DumpProgress& progress, DumpFacts* facts);

} // namespace dumpsyms
