// LLVM 19 skips a DIE's attribute values without checking the offset
// against the section: a block or exprloc length, or fixed-size values at
// the end of the last unit, move it past the end of .debug_info, and the
// next attribute is read from there, out of bounds (llvm-dwarfdump-19
// --debug-info crashes the same way; docs/FUZZING.md). Each unit's DIEs are
// walked here first, with LLVM's own abbreviations and form sizes but
// checked, and a unit is cut at the first DIE that does not end inside it.
#pragma once

#include "object/elf_image.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

struct DieOverrunCut {
  // Some DIE of .debug_info or .debug_types runs past its unit's end.
  bool needed = false;
  // A copy of the image in which each such DIE, and the rest of its unit,
  // are null entries (zero bytes), so that LLVM reads the unit's DIEs
  // before it; null when none is needed or it could not be made (then
  // the DWARF is not safe to read).
  std::unique_ptr<ElfImage> image;
};

// Checks every unit `context` (opened on `image`) found; each cut is
// described in `warnings`.
DieOverrunCut cutOverrunningDies(const ElfImage& image, llvm::DWARFContext& context,
                                 std::vector<std::string>& warnings);

} // namespace dumpsyms
