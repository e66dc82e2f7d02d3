// What the minidump_stackwalk and microdump_stackwalk drop-ins share of
// Breakpad's command lines: the usage text's frame (its first lines name
// the program as invoked, without its directory) and the choice between
// the human and the machine form.
#pragma once

#include "walk/printers/walk_printers.h"

#include <cstdio>

namespace dumpsyms {

// "Usage: PROGRAM [options] <DUMP_KIND-file> [symbol-path ...]", the
// summary line, then `option_lines` as given.
void printBreakpadUsage(std::FILE* out, const char* argv0, const char* dump_kind,
                        const char* option_lines);

// Breakpad's human form (`options`), or its pipe-delimited machine form.
void printWalkAsBreakpad(const ProcessWalk& walk, bool machine, const BreakpadPrintOptions& options,
                         std::FILE* out);

} // namespace dumpsyms
