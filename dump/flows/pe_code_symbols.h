// The names a PE's own tables give its code, for a dump without its PDB:
// the exports, and the COFF symbol table MinGW's linkers keep. MSVC's
// decorations are undone as the PDB flow undoes them; GNU-mangled names
// (Itanium C++, Rust, D: what MinGW's GCC, Clang, rustc and gdc write) are
// demangled as on ELF; x86 C decoration (`_f`, `_f@8`, `@f@8`) is taken
// off, its @N becoming the PUBLIC record's parameter size.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/object/demangle.h"
#include "dump/pe/pe_image.h"
#include "symbol_file/model/module_builder.h"

#include <llvm/ADT/StringRef.h>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

// `raw` as a table spells it; `x86`: the 32-bit decoration rules.
CodeSymbol namedPeSymbol(uint64_t address, uint64_t size, llvm::StringRef raw, bool x86,
                         NameStyle style);

// Named, non-forwarded exports at their RVA plus `bias`; problems with the
// table are warnings.
std::vector<CodeSymbol> peExportSymbols(const PeImage& pe, uint64_t bias, NameStyle style,
                                        Diagnostics& diagnostics);

// The COFF symbol table's code symbols, at their virtual addresses.
std::vector<CodeSymbol> peCoffSymbols(const PeImage& pe, NameStyle style, Diagnostics& diagnostics);

// An x86 C name with its calling convention's decoration, the @N of
// stdcall (`_f@8`) and fastcall (`@f@8`): its source name and N.
struct X86CName {
  std::string name;
  uint32_t parameter_size = 0;
};

// For an x86 PE: the decorated names of its COFF symbol table, as the
// table spells them (what Clang records as DW_AT_linkage_name) and without
// the C prefix (GCC's spelling there), each with its source name. Empty on
// other machines.
std::unordered_map<std::string, X86CName> x86DecoratedNames(const PeImage& pe);

} // namespace dumpsyms
