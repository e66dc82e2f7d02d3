// LLVM 19 stops reading .debug_info at the first unit whose header it
// cannot parse, losing every unit after it. Each unit's length field still
// says where the next one starts, so a unit with a broken header can be
// blanked out (a valid header, no DIEs) and the rest read as usual.
#pragma once

#include "dump/object/elf_image.h"

#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

// A copy of `image` with every unusable unit header of .debug_info and
// .debug_types blanked, or nullptr when all of them are sound. Each blanked
// unit (and a cut-off tail) is described in `warnings`.
std::unique_ptr<ElfImage> repairUnitHeaders(const ElfImage& image,
                                            std::vector<std::string>& warnings);

} // namespace dumpsyms
