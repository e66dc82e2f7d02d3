// Prepares an image's DWARF for LLVM's parser.
//
// - LLVM inflates every compressed DWARF section, one after the other, when
//   it opens a file: also location lists, address tables and name indexes,
//   which a symbol dump never reads (on Debian's python3.11 debug file that
//   is a third of the work). Here the sections a dump reads are inflated in
//   parallel, straight into one copy of the image; the others are left empty.
// - LLVM 19's DIE parser can run past the end of .debug_info on corrupt
//   input (its LEB128 reader never stops once past the end), so in the copy
//   each unit section is followed by zero bytes, where any such run stops.
#pragma once

#include "object/elf_image.h"

#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

// The copy LLVM should read, or nullptr when `image` has no DWARF unit
// section (or the copy cannot be made: LLVM then reads the file itself and
// reports what is wrong).
std::unique_ptr<ElfImage> prepareDwarfSections(const ElfImage& image, unsigned threads,
                                               std::vector<std::string>& warnings);

} // namespace dumpsyms
