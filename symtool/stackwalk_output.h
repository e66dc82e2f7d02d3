// How `symtool stackwalk` prints a walked core: text like a debugger's
// backtrace for people, one JSON document for programs.
#pragma once

#include "stackwalk/core_walk.h"

namespace dumpsyms {

void printWalkedCore(const WalkedCore& core, bool json);

} // namespace dumpsyms
