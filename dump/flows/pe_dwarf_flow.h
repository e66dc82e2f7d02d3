// The flow for a PE whose debug information is DWARF (MinGW's GCC and
// Clang, Rust's *-pc-windows-gnu, Qt and MSYS2 builds), in the PE itself,
// in a companion `objcopy --only-keep-debug` made (--debug-file, or found
// by the PE's .gnu_debuglink as on ELF), or a companion dumped alone. The
// PE's sections reach the one DWARF and CFI readers through an ELF view
// (dump/pe/pe_dwarf_view); MODULE and INFO are a PE's (windows, the CodeView id
// or 33 zeros, ImageBase-relative addresses); PUBLIC from the COFF symbol
// table and the exports; STACK CFI from .eh_frame/.debug_frame, then the
// exception directory for the code they leave out.
#pragma once

#include "dump/flows/dump_module.h"

namespace dumpsyms {

class PeImage;

// Whether a PE without its PDB has anything of this flow's to read: DWARF,
// a .gnu_debuglink, or a COFF symbol table.
bool peHasGnuDebugInfo(const PeImage& pe);

llvm::Expected<Module> dumpPeDwarfModule(const PeImage& pe, const Options& options,
                                         Diagnostics& diagnostics, const DumpProgress& progress,
                                         DumpFacts* facts);

} // namespace dumpsyms
