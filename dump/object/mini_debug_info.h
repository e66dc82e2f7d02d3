// MiniDebugInfo (Fedora's .gnu_debugdata): an xz-compressed ELF file inside
// a stripped binary, holding a .symtab of the functions .dynsym lacks.
#pragma once

#include "dump/object/elf_image.h"

#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

// The embedded image, or nullptr when there is none; problems inflating it
// go to `warnings`.
std::unique_ptr<ElfImage> readMiniDebugInfo(const ElfImage& image,
                                            std::vector<std::string>& warnings);

} // namespace dumpsyms
