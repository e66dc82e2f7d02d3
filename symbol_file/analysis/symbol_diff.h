// How two symbol files of a module differ, function by function: which
// functions were added or removed, which moved (same name, another
// address), and which kept their place but changed their line records
// (addresses taken relative to the function, files by path).
#pragma once

#include "symbol_file/model/module.h"

#include <string>
#include <vector>

namespace dumpsyms {

struct FunctionMove {
  std::string name;
  uint64_t from = 0, to = 0;
};

struct SymbolDiff {
  bool header_differs = false; // MODULE os, cpu, id or name, or INFO CODE_ID
  std::vector<std::string> added, removed;
  std::vector<FunctionMove> moved;
  std::vector<std::string> lines_changed;

  bool empty() const {
    return !header_differs && added.empty() && removed.empty() && moved.empty() &&
           lines_changed.empty();
  }
};

SymbolDiff diffSymbols(const Module& a, const Module& b);

} // namespace dumpsyms
