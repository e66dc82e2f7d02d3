// MSVC-mangled names spelled as Microsoft's undecorator (UnDecorateSymbolName,
// which DIA's get_undecoratedNameEx uses) spells them under the flags
// Breakpad's Windows dump_syms passes: no calling conventions or other
// Microsoft keywords (__ptr64), no return types, access specifiers, member
// kinds (virtual, static), `this` qualifiers (a const method's trailing
// const) or throw specifications, and no class/struct/union/enum keywords.
// What is left keeps undname's own punctuation, which is not LLVM's:
// "f(int,char * *)", "std::vector<int,std::allocator<int> >",
// "`scalar deleting destructor'".
//
// LLVM's demangler parses the name; only the printing is ours.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dumpsyms {

// Nothing when `mangled` is not a name LLVM's MSVC demangler can parse.
std::optional<std::string> undnameStyle(std::string_view mangled);

} // namespace dumpsyms
