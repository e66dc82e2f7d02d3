// Prints a finalized Module as Breakpad's text symbol format.
#pragma once

#include "symbol_file/model/module.h"

#include <ostream>

namespace dumpsyms {

struct WriteOptions {
  bool header_only = false;        // -i: MODULE and INFO only
  bool absolute_addresses = false; // -a: do not subtract the load address
  bool include_cfi = true;         // -c clears it
  unsigned threads = 1;            // to format FUNC records (0: one per core)
};

// How many records of each kind a file holds (for reports and manifests).
struct RecordCounts {
  uint64_t files = 0;          // FILE
  uint64_t inline_origins = 0; // INLINE_ORIGIN
  uint64_t functions = 0;      // FUNC
  uint64_t lines = 0;          // line records
  uint64_t inlines = 0;        // INLINE
  uint64_t publics = 0;        // PUBLIC
  uint64_t cfi_frames = 0;     // STACK CFI INIT
  uint64_t cfi_changes = 0;    // STACK CFI deltas
  uint64_t stack_win = 0;      // STACK WIN
};

// Writes `module` to `out` and counts what it wrote. The module must come
// from ModuleBuilder::finish (or hold records in the same order); the writer
// only formats.
RecordCounts writeSymbolFile(const Module& module, const WriteOptions& options, std::ostream& out);

} // namespace dumpsyms
