// The coverage bars: a module's range as an SVG strip, one rectangle per
// run of one kind (after coverageBuckets has merged the runs down to what
// a screen can show), each with a tooltip giving its addresses.
#pragma once

#include "symbol_file/analysis/symbol_coverage.h"

#include <string>
#include <string_view>

namespace dumpsyms {

// `id`: the svg element's id; `label`: its accessible name.
std::string renderCoverageBar(std::string_view id, std::string_view label,
                              const std::vector<CoverageRun>& runs, uint64_t start, uint64_t end,
                              bool thin);

// The CFI runs as CoverageRuns of kind FunctionWithLines (in CFI) or Nothing.
std::vector<CoverageRun> cfiAsRuns(const SymbolCoverage& coverage);

} // namespace dumpsyms
