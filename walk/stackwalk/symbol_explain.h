// What `symtool stackwalk --explain` and the drop-ins' -v say about the
// search for symbols: per module, in the dump's order, every store path,
// cache path and URL tried, in the order tried, and what each answered;
// one line each, for stderr. Built from the walk's recorded attempts (the
// supplier never prints).
#pragma once

#include "walk/stackwalk/process_walk.h"

#include <string>
#include <vector>

namespace dumpsyms {

// Lines without a tool prefix or newline: "module NAME (DEBUG_FILE ID):
// WHERE: ANSWER", or "module NAME (...): WHY" for a module never looked
// for (no walked frame in it, or nothing to look it up by).
std::vector<std::string> explainSymbolSearch(const ProcessWalk& walk);

} // namespace dumpsyms
