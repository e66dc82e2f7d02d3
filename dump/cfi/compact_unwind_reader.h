// The entries of a Mach-O image's compact unwind table (__TEXT,__unwind_info):
// which code range has which 32-bit encoding. Ranges run from one entry's
// function to the next (the last to the index's end marker); offsets in the
// table count from the image's base (the __TEXT segment's address), which
// the entries here add back. Every offset and count is checked against the
// section; what does not fit is a warning and is left out.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct CompactUnwindEntry {
  uint64_t start = 0, end = 0; // addresses
  uint32_t encoding = 0;
};

std::vector<CompactUnwindEntry> readCompactUnwindEntries(llvm::StringRef section,
                                                         uint64_t image_base,
                                                         std::vector<std::string>& warnings);

} // namespace dumpsyms
