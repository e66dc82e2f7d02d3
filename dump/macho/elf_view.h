// A Mach-O image's DWARF and DWARF CFI as an ELF image
// (dump/object/elf_section_view), so that the one DWARF reader (dump/dwarf/)
// and CFI reader (dump/cfi/) read them as they read any ELF file's: the
// __DWARF,__debug_* sections under their ELF names (__debug_str_offs is
// .debug_str_offsets), and __TEXT,__eh_frame as .eh_frame at its address.
#pragma once

#include "dump/macho/macho_image.h"
#include "dump/object/elf_image.h"

#include <llvm/Support/Error.h>
#include <memory>

namespace dumpsyms {

// The view, named for the image's file (and slice). An error when the
// image's cpu has no ELF counterpart the readers know (ppc, arm64_32).
llvm::Expected<std::unique_ptr<ElfImage>> machOElfView(const MachOImage& image);

// The ELF name of a Mach-O __DWARF section ("__debug_str_offs" ->
// ".debug_str_offsets"), or "" for one the readers do not take.
std::string elfDwarfSectionName(llvm::StringRef macho_name);

} // namespace dumpsyms
