// The symbol store installed with the tools (<prefix>/share/dump_syms/symbols,
// beside <prefix>/bin; build/share/dump_syms/symbols in the build tree): Breakpad's
// linux-gate.so templates, which the stack walkers search after the stores
// they are given.
#pragma once

#include <string>

namespace dumpsyms {

// Its path, found from the running executable's; "" when there is none.
std::string bundledSymbolStore();

} // namespace dumpsyms
