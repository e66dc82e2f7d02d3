// Symbol demangling shared by every reader, spelled as llvm-symbolizer
// spells names (LLVM's Itanium, Rust and D demanglers).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

// The demangled form of `name`, or `name` itself when it is not mangled.
std::string demangle(llvm::StringRef name);

} // namespace dumpsyms
