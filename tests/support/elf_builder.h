// A valid x86_64 ELF file made around given sections: the dwarf_sections
// fuzz target puts fuzzed DWARF into one, the unit tests hand-made DWARF.
// One PT_LOAD maps the whole file at address 0, so that an allocated
// section's address is its file offset.
#pragma once

#include <cstdint>
#include <vector>

namespace dumpsyms::test_support {

struct ElfSection {
  const char* name;
  uint32_t type;
  uint64_t flags;
  std::vector<uint8_t> bytes;
};

// The ELF's bytes; .shstrtab is added after `sections`.
std::vector<uint8_t> elfAround(std::vector<ElfSection> sections);

} // namespace dumpsyms::test_support
