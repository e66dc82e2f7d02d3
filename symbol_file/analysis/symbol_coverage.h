// What covers each byte of a module's code, for a picture of it: the
// module's address range split into runs, each of one kind (a FUNC with a
// line record, a FUNC without one, only a PUBLIC, nothing), the runs of
// STACK CFI beside them, and the largest functions that lack CFI or lines.
// The byte counts agree with computeStats (symbol_stats.h) where both count
// the same thing: with_lines + without_lines is its function_bytes (both
// count the union of the FUNC ranges, so a byte two FUNCs share counts
// once), cfi_bytes is its cfi_bytes. with_lines is at most its line_bytes:
// here a line record counts only inside its own FUNC's ranges, there every
// line record counts. [start, end) is more than its code_bytes: it also
// holds the PUBLICs' extents and the gaps between records.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

enum class CoverageKind { FunctionWithLines, FunctionWithoutLines, PublicOnly, Nothing };
const char* coverageKindName(CoverageKind kind); // "func-lines", "func-no-lines", "public", "none"

struct CoverageRun {
  uint64_t start = 0, end = 0; // [start, end), module-relative
  CoverageKind kind = CoverageKind::Nothing;
};

struct CoverageFunction {
  std::string name;
  uint64_t address = 0; // the start of its first range
  uint64_t size = 0;    // of all its ranges
};

struct SymbolCoverage {
  // The module's code as the file knows it: from the lowest address of a
  // FUNC, PUBLIC, STACK CFI or STACK WIN record to the highest end of one
  // (a PUBLIC ends where the next FUNC or PUBLIC starts; the last one ends
  // at the end of the other records, or is one byte).
  uint64_t start = 0, end = 0;
  // [start, end) cut into adjacent runs, ascending, neighbours of one kind
  // merged. A byte in a FUNC's range is FunctionWithLines when one of that
  // FUNC's line records covers it; a byte in no FUNC but in a PUBLIC's
  // extent is PublicOnly. Empty when the module has no such record.
  std::vector<CoverageRun> runs;
  // Bytes of [start, end) by kind (each byte once: a FUNC's byte inside a
  // line record is FunctionWithLines).
  uint64_t with_lines = 0, without_lines = 0, public_only = 0, nothing = 0;
  // [start, end) cut into runs of "in a STACK CFI INIT range" (true) or not.
  std::vector<std::pair<CoverageRun, bool>> cfi_runs; // run.kind unused
  uint64_t cfi_bytes = 0;                             // equals computeStats' cfi_bytes
  // The largest FUNCs with no byte in a STACK CFI (or STACK WIN) range,
  // and those with no line record at all; largest first, ties by address.
  std::vector<CoverageFunction> largest_without_cfi, largest_without_lines;
};

SymbolCoverage computeCoverage(const Module& module, size_t largest_count = 20);

// The runs merged down to at most `buckets` spans for drawing: [first
// run's start, last run's end) cut into buckets of one width (the last may
// be shorter), not merged with each other; each takes the kind that covers
// most of its bytes (a tie goes to the kind listed first in CoverageKind;
// bytes between runs count as Nothing). Empty coverage: none.
std::vector<CoverageRun> coverageBuckets(const std::vector<CoverageRun>& runs, size_t buckets);

} // namespace dumpsyms
