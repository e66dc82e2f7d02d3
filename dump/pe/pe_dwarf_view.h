// A PE's DWARF and DWARF CFI as an ELF image (dump/object/elf_section_view),
// so that the one DWARF reader (dump/dwarf/) and CFI reader (dump/cfi/) read
// what MinGW's GCC and Clang (and Rust's *-pc-windows-gnu) put into a PE:
// the .debug_* sections, .eh_frame (i686 MinGW unwinds with it) at its
// virtual address, and .gnu_debuglink, which names a separate debug file as
// on ELF. DWARF in a PE gives virtual addresses (ImageBase + RVA), as the
// sections have here.
#pragma once

#include "dump/object/elf_image.h"
#include "dump/pe/pe_image.h"

#include <llvm/Support/Error.h>
#include <memory>

namespace dumpsyms {

// Whether the PE holds a .debug_info section with bytes.
bool peHasDwarf(const PeImage& pe);

// The view, named for the PE's file. An error for a machine the readers do
// not know.
llvm::Expected<std::unique_ptr<ElfImage>> peDwarfView(const PeImage& pe);

} // namespace dumpsyms
