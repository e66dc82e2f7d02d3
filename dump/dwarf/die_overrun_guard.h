// LLVM 19 skips a DIE's attribute values without checking the offset
// against the section: a block or exprloc length, or fixed-size values at
// the end of the last unit, move it past the end of .debug_info, and the
// next attribute is read from there, out of bounds (llvm-dwarfdump-19
// --debug-info crashes the same way; docs/FUZZING.md). Each unit's DIEs are
// walked here first, with LLVM's own abbreviations and form sizes but
// checked, and a unit is cut at the first DIE that does not end inside it.
#pragma once

#include "dump/object/elf_image.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <memory>
#include <mutex>
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
// described in `warnings`. For a context over bytes LLVM owns (the file as
// mapped, or sections LLVM inflated itself).
DieOverrunCut cutOverrunningDies(const ElfImage& image, llvm::DWARFContext& context,
                                 std::vector<std::string>& warnings);

// The same check, unit by unit, just before LLVM parses a unit, for a
// context over the dump's own copy of the DWARF (dump/dwarf/section_inflation):
// the DIEs are cut in place, the walk costs a share of each worker's time
// rather than a pass of its own, and units read while .debug_info still
// inflates are checked too. Thread-safe; each unit's bytes must be written
// by one thread only, before any reads them (UnitResidency sees to it).
class DieCutter {
public:
  explicit DieCutter(std::string path) : path_(std::move(path)) {}
  // `unit_die_only`: only the first DIE, before LLVM reads the unit DIE.
  void check(const llvm::DWARFUnit& unit, bool unit_die_only);
  // The warnings so far, in offset order.
  std::vector<std::string> takeWarnings();

private:
  std::string path_;
  std::mutex mutex_;
  std::vector<std::pair<uint64_t, std::string>> warnings_;
};

} // namespace dumpsyms
