// What a symbol file holds, in numbers: records by kind, how much of the
// module's code its FUNCs and line records cover, and its largest functions.
#pragma once

#include "symbol_file/model/module.h"
#include "symbol_file/model/record_kinds.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

struct SymbolStats {
  RecordCounts records;
  // The module's code as the file knows it: FUNC, STACK CFI and STACK WIN
  // ranges together (a symbol file does not record section sizes).
  uint64_t code_bytes = 0;
  uint64_t function_bytes = 0; // of code_bytes, inside a FUNC
  uint64_t line_bytes = 0;     // of code_bytes, inside a line record
  uint64_t cfi_bytes = 0;      // of code_bytes, inside a STACK CFI INIT range
  std::vector<std::pair<std::string, uint64_t>> largest; // name, size; largest first
};

SymbolStats computeStats(const Module& module, size_t largest_count = 10);

} // namespace dumpsyms
