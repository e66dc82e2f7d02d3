// Symbol demangling shared by every reader, in either of the two spellings
// a dump can use: LLVM's (as llvm-symbolizer spells names, with its Itanium,
// Rust and D demanglers) or Breakpad's (libstdc++'s abi::__cxa_demangle).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

// Whose spelling of function names a dump uses: LLVM's demangler (as
// llvm-symbolizer prints them) or Breakpad's dump_syms (libstdc++'s
// abi::__cxa_demangle), so that crash signatures made before keep matching.
enum class NameStyle { Llvm, Breakpad };

// The demangled form of `name`, or `name` itself when it is not mangled:
// LLVM's spelling (Itanium C++, Rust v0), except where a language's own
// tools read names better: Rust's legacy names lose their per-build hash
// (dump/object/rust_demangle), D names are read by
// dump/object/dlang_demangle (LLVM 19 reads none with a type), and
// gfortran's module procedures (`__grid_mod_MOD_grid_step`) are
// `grid_mod::grid_step`, as their DWARF names them.
std::string demangle(llvm::StringRef name);

// `module::procedure` for gfortran's `__module_MOD_procedure`, or nothing.
std::optional<std::string> fortranModuleProcedure(llvm::StringRef name);

// What libstdc++'s abi::__cxa_demangle makes of `name`, or nothing when it
// fails. It reads bare type encodings too: "f" is "float".
std::optional<std::string> cxaDemangle(llvm::StringRef name);

// A symbol-table name as a dump in `style` spells it. Breakpad hands every
// symbol name to __cxa_demangle, mangled or not, and keeps what it returns.
std::string demangleSymbol(llvm::StringRef name, NameStyle style);

} // namespace dumpsyms
