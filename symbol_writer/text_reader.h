// Reads a Breakpad text symbol file back into the model the writer prints
// from, so that `dump_syms | read | write` is the identity tests can hold,
// and so that every reader of symbol files (symtool) shares one parser.
// Addresses stay module-relative: the module's load address is 0.
#pragma once

#include "symbol_writer/module.h"

#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymbolFileProblem {
  size_t line = 0; // 1-based
  std::string message;
  // The line was not read at all (Breakpad's parser counts such lines,
  // but for INLINE records, as errors and marks the file corrupt), rather
  // than read and found wrong.
  bool skipped = false;
};

struct ParsedSymbolFile {
  Module module;
  // Lines that do not follow the grammar (each is skipped), and records
  // the processor would drop or misread: overlapping FUNCs, line records
  // outside their FUNC or overlapping, ids without their FILE or
  // INLINE_ORIGIN, INLINE nesting that skips a level, a PUBLIC address
  // given twice, STACK CFI outside its INIT range. In line order.
  std::vector<SymbolFileProblem> problems;
};

ParsedSymbolFile readSymbolFile(llvm::StringRef text);

} // namespace dumpsyms
