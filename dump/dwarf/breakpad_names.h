// Names of functions and inline origins spelled as Breakpad's Linux
// dump_syms spells them (--names breakpad), so that crash signatures made
// from its symbol files keep matching ours.
//
// Breakpad names a function after its demangled linkage name (libstdc++'s
// __cxa_demangle), found on the DIE or on the declaration its
// DW_AT_specification names; without one, after its DW_AT_name joined to
// the names of the scopes around it, which carries no parameters; without
// that, after the DIE its DW_AT_abstract_origin names. Where it renames a
// function after a DIE later in the file, so do we
// (dump/dwarf/breakpad_forward_references). Where it cannot follow a reference
// (to a DIE it never read: in a lexical block, a type unit, a dwz partial
// unit or supplementary file) and writes `<name omitted>`, we follow it and
// spell what we find by its rules: its spelling, our reach.
#pragma once

#include "dump/dwarf/breakpad_forward_references.h"
#include "dump/dwarf/die_reader.h"

#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <string>
#include <unordered_map>

namespace dumpsyms {

// Not thread-safe: each worker owns one.
class BreakpadNamer {
public:
  // `forward`: the file's functions that refer forwards; without it every
  // such function takes the name of the DIE it refers to.
  explicit BreakpadNamer(const SupplementaryDwarf* supplementary = nullptr,
                         const ForwardReferences* forward = nullptr)
      : reader_(supplementary), forward_(forward) {}

  // The FUNC name of a subprogram DIE; empty when DWARF names it nowhere.
  std::string functionName(llvm::DWARFDie subprogram);

  // The INLINE_ORIGIN name of an inlined call: the name of the function its
  // DW_AT_abstract_origin names, spelled as that function's FUNC name.
  std::string inlineOriginName(llvm::DWARFDie inlined_call);

private:
  // What a declaration lends the DIEs whose DW_AT_specification names it:
  // a full name, or the scope it sits in and its own short name.
  struct Specification {
    bool exists = false;
    std::string qualified;
    std::string enclosing;
    std::string unqualified;
  };
  // A function's or a scope's name built as Breakpad builds it, and what it
  // lends as a specification.
  struct Qualified {
    std::string name;
    Specification specification;
  };

  const Qualified& qualified(llvm::DWARFDie die, int depth);
  Qualified computeQualified(llvm::DWARFDie die, int depth);
  const std::string& functionNameAt(llvm::DWARFDie die, int depth);
  std::string enclosingName(llvm::DWARFDie die, int depth);

  DieReader reader_;
  const ForwardReferences* forward_;
  std::unordered_map<const void*, Qualified> qualified_;
  std::unordered_map<const void*, std::string> function_names_;
};

} // namespace dumpsyms
