// LLVM inflates every compressed DWARF section, one after the other, when it
// opens a file: also location lists, address tables and name indexes, which
// a symbol dump never reads (on Debian's python3.11 debug file that is a
// third of the work). This inflates the sections the dump reads, in
// parallel, into a copy of the image, and leaves the others empty.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "object/elf_image.h"

namespace dumpsyms {

// nullptr when `image` has no compressed DWARF section (LLVM then reads the
// file's bytes in place) or when inflating fails (LLVM then reports it).
std::unique_ptr<ElfImage> inflateDwarfSections(const ElfImage& image, unsigned threads,
                                               std::vector<std::string>& warnings);

}  // namespace dumpsyms
