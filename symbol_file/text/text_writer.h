// Prints a finalized Module as Breakpad's text symbol format.
#pragma once

#include "symbol_file/model/module.h"
#include "symbol_file/model/record_kinds.h"

#include <ostream>

namespace dumpsyms {

struct WriteOptions {
  bool header_only = false;        // -i: MODULE and INFO only
  bool absolute_addresses = false; // -a: do not subtract the load address
  bool include_cfi = true;         // -c clears it
  unsigned threads = 1;            // to format FUNC records (0: one per core)
};

// Writes `module` to `out` and counts what it wrote. The module must come
// from ModuleBuilder::finish (or hold records in the same order); the writer
// only formats.
RecordCounts writeSymbolFile(const Module& module, const WriteOptions& options, std::ostream& out);

} // namespace dumpsyms
