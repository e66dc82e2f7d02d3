// How symtool prints what it measured of symbol files: text for people,
// JSON for programs.
#pragma once

#include "symbol_file/analysis/symbol_diff.h"
#include "symbol_file/analysis/symbol_stats.h"

#include <string>

namespace dumpsyms {

// Text for people (headed by `path`), or with `json` one object: "records"
// by record kind, "bytes" {code, function, line, cfi}, "largest" [{name, size}].
void printStats(const std::string& path, const SymbolStats& stats, bool json);
void printDiff(const SymbolDiff& diff);

} // namespace dumpsyms
