// An ELF image made of another file's sections, without copying them: the
// ELF headers sit on a page of their own and the file is mapped right after
// them, so each section's data is the file's own bytes. Formats that carry
// DWARF outside ELF (Mach-O's __DWARF segment, a PE's .debug_* sections) are
// so read by the one DWARF reader (dump/dwarf/) and CFI reader (dump/cfi/),
// with every guard they have.
#pragma once

#include "dump/object/elf_image.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

struct ViewSection {
  std::string name;     // its ELF name: ".debug_info", ".eh_frame", ...
  uint64_t address = 0; // where the code that reads it expects it (pc-relative CFI)
  uint64_t offset = 0;  // of its bytes within the file
  uint64_t size = 0;
  uint32_t flags = 0; // SHF_ALLOC for sections the image loads
};

struct ViewShape {
  uint16_t machine = 0; // e_machine
  bool is_64_bit = true;
};

// The view of `path`'s `sections`, named `name` in messages. Sections must
// lie within the file (callers check their tables against its size).
llvm::Expected<std::unique_ptr<ElfImage>> elfSectionView(const std::string& path,
                                                         const std::string& name, ViewShape shape,
                                                         const std::vector<ViewSection>& sections);

} // namespace dumpsyms
