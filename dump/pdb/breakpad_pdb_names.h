// FUNC and PUBLIC names of a PDB spelled as Breakpad's Windows dump_syms
// writes them (--names breakpad), so that crash signatures made from its
// symbol files keep matching ours. It asks DIA for each symbol's
// undecorated name and then edits it:
//   - DIA undecorates the decorated (linker) name of the public symbol at
//     the function's address with undname's rules (dump/pdb/undname_printer);
//     a name LLVM left a ".llvm.NNN" or "$<32 hex digits>" suffix on is
//     undecorated without it;
//   - a function with internal linkage has no public symbol: DIA spells
//     its type instead, "static RET NAME(PARAMS)" (dump/pdb/dia_local_names);
//   - a trailing "(void)" becomes "()";
//   - a C name (no ':' or '(') loses its x86 decoration: "_f@8" (stdcall)
//     and "@f@8" (fastcall) give "f" and 8 bytes of stack parameters
//     (fastcall's first 8 are in registers), "_f" (cdecl) gives "f" — on
//     x64 too, where the underscore is part of the name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dumpsyms {

struct BreakpadPdbName {
  std::string name;
  uint32_t stack_parameter_size = 0; // from a stdcall/fastcall decoration
};

// The name DIA's undecoration and Breakpad's edits make of `decorated` (a
// public symbol's name, or a procedure's own where it has none).
BreakpadPdbName breakpadNameOfDecorated(std::string_view decorated);

// Breakpad's edits of a name DIA built from a type ("static ...").
std::string breakpadNameOfLocal(std::string dia_name);

} // namespace dumpsyms
