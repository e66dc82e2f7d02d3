// The words `symtool stackwalk --json` uses for what the walk holds as
// enums and flags: a frame's trust, a module's symbol status, a thread's
// signal. Shared with the walk page (server/pages/walk_page), whose data-
// attributes promise the JSON's values, so that the two cannot drift.
#pragma once

#include "walk/stackwalk/process_walk.h"

#include <string>

namespace dumpsyms {

// trustName of the frame's trust; "inline" for an inlined call.
const char* frameTrustName(const ResolvedStackFrame& frame);

// "loaded", "corrupt", "missing", or "not needed" when no walked frame
// asked for the module's symbols.
const char* symbolStatusName(const ModuleSymbolStatus& status);

// The signal a crashed thread got ("SIGSEGV"): a core's own, or the
// crash's code on Linux and Android; "" otherwise (the JSON's null).
std::string threadSignalName(const ProcessWalk& walk, const WalkedThread& thread);

} // namespace dumpsyms
