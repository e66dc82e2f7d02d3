// Breakpad's -s: the stack between a frame's stack pointer and its
// caller's, as hex and text, then each word there that points into a module
// whose symbols the walk loaded, with what it points at.
#pragma once

#include "walk/stackwalk/process_walk.h"

#include <cstdio>

namespace dumpsyms {

void printBreakpadStackContents(const ProcessWalk& walk, const WalkedThread& thread, size_t index,
                                std::FILE* out);

} // namespace dumpsyms
