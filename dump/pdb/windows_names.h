// Names as the PDB spells them, made readable the way llvm-symbolizer makes
// them: MSVC-mangled names ("?area@Shape@@UEBANXZ") demangled without
// access specifiers, calling conventions, member kinds or return types;
// 32-bit C decorations ("_f", "_f@8", "@f@8") stripped.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

struct UndecoratedName {
  std::string name;
  uint32_t stack_parameter_size = 0; // from an x86 "@N" suffix; 0 when absent
};

// `x86` selects the 32-bit C decoration rules.
UndecoratedName undecorateName(llvm::StringRef name, bool x86);

// `name` with each MSVC anonymous namespace ("?A0x" and its hex key, as
// MSVC's compiler writes it in procedure and id records, and as LLVM's
// ThinLTO leaves it in a name it made unique) spelled as Microsoft's
// undecorator spells it: "`anonymous namespace'".
std::string spellAnonymousNamespaces(std::string name);

// True for a name only LLVM's MSVC demangler can read.
inline bool isMsvcMangled(llvm::StringRef name) {
  return name.starts_with("?");
}

} // namespace dumpsyms
