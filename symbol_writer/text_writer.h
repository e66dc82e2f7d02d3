// Prints a finalized Module as Breakpad's text symbol format.
#pragma once

#include "symbol_writer/module.h"

#include <ostream>

namespace dumpsyms {

struct WriteOptions {
  bool header_only = false;        // -i: MODULE and INFO only
  bool absolute_addresses = false; // -a: do not subtract the load address
  bool include_cfi = true;         // -c clears it
};

// Writes `module` to `out`. The module must come from ModuleBuilder::finish
// (or hold records in the same order); the writer only formats.
void writeSymbolFile(const Module& module, const WriteOptions& options, std::ostream& out);

} // namespace dumpsyms
