// Code symbols of a Mach-O symbol table, for PUBLIC records and for naming
// code that has line rows but no DWARF function: nlist entries defined in
// a section that holds instructions (N_SECT, not debugging stabs), each
// name without the one leading underscore C names get on Mach-O and then
// demangled, as llvm-symbolizer and Breakpad's Mac dump_syms name them.
// A symbol's size runs to the next symbol in its section, or its end.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/macho/macho_image.h"
#include "dump/object/demangle.h"
#include "symbol_file/model/module_builder.h"

#include <vector>

namespace dumpsyms {

std::vector<CodeSymbol> readMachOSymbols(const MachOImage& image, NameStyle style,
                                         Diagnostics& diagnostics);

} // namespace dumpsyms
