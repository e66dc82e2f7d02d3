// Breakpad's dump_syms reads DIEs once, in file order. A function whose
// DW_AT_specification or DW_AT_abstract_origin points forwards (gcc's LTO
// output puts abstract origins after their concrete copies) is named after
// that DIE once it is read, in place of the name it made for itself
// (`foo.part.0` becomes `foo`). But Breakpad remembers one such function
// per DIE, the last one read: the earlier clones of `foo` keep their own
// names. This index records, for each DIE referred to forwards, that last
// function, so that --names breakpad names clones as Breakpad does.
#pragma once

#include "dump/dwarf/die_reader.h"

#include <llvm/DebugInfo/DWARF/DWARFDie.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <unordered_map>

namespace dumpsyms {

// The DIE a function refers to forwards, as Breakpad sees it: the target of
// the later of DW_AT_specification and DW_AT_abstract_origin that names a
// subprogram further on in the same section. Invalid when there is none.
llvm::DWARFDie forwardReference(llvm::DWARFDie function, const DieReader& reader);

class ForwardReferences {
public:
  // Records the functions of one compile unit; call in section order.
  void addUnit(llvm::DWARFUnit& unit, const DieReader& reader);

  // True when `function` is the last function Breakpad reads that refers
  // forwards to `target`, the one it renames.
  bool renames(llvm::DWARFDie target, llvm::DWARFDie function) const;

private:
  std::unordered_map<const void*, const void*> last_referrer_;
};

} // namespace dumpsyms
