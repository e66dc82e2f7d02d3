// Names of functions as DWARF describes them, spelled as LLVM's demangler
// (and so llvm-symbolizer) spells them: the default, --names llvm.
#pragma once

#include "dump/dwarf/die_reader.h"

#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace dumpsyms {

// Names subprogram DIEs (and the origins of inlined calls) of one unit.
// Not thread-safe: each worker owns one.
class FunctionNamer {
public:
  explicit FunctionNamer(const SupplementaryDwarf* supplementary = nullptr,
                         UnitPins* pins = nullptr)
      : reader_(supplementary, pins) {}

  // The demangled linkage name (dump/object/demangle) where the DIE (or a
  // DIE it refers to through DW_AT_specification / DW_AT_abstract_origin)
  // has one; otherwise the name qualified by its enclosing namespaces and
  // classes (C++) or the plain DW_AT_name (C, Go). Fortran's is DW_AT_name
  // qualified by its module (`grid_mod::grid_step`) before any linkage
  // name. Empty when DWARF has no name anywhere in the chain.
  std::string name(llvm::DWARFDie die) { return lookup(die).text; }

  struct Name {
    std::string text;
    // From a linkage name, or C's DW_AT_name: what a symbol table would say
    // too. False for names built from the DIE tree, which lack parameters.
    bool complete = false;
  };
  const Name& lookup(llvm::DWARFDie die);

  // The name of an inlined call's origin, spelled as llvm-symbolizer spells
  // inlined frames: the demangled linkage name where the chain has one,
  // else the plain DW_AT_name (inlined code has no symbol to supply more).
  std::string inlineOriginName(llvm::DWARFDie die);

  // Whether a name since the last call was cut at limits::kMaxScopeDepth
  // (scopes nested deeper, only in corrupt DWARF); resets the flag.
  bool takeScopeLimitHit() { return std::exchange(scope_limit_hit_, false); }

private:
  Name computeName(llvm::DWARFDie die);
  std::string qualifiedName(llvm::DWARFDie named);
  std::vector<llvm::DWARFDie> declarationChain(llvm::DWARFDie die) const;
  const char* stringAttribute(llvm::DWARFDie die,
                              std::initializer_list<llvm::dwarf::Attribute> attributes) const {
    return reader_.string(die, attributes);
  }

  DieReader reader_;
  std::unordered_map<const void*, Name> cache_;
  uint32_t naming_depth_ = 0;
  bool scope_limit_hit_ = false;
};

} // namespace dumpsyms
