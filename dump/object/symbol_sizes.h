// Sizes for symbol tables that give none (Mach-O's nlist, COFF's): a
// symbol's code runs to the next symbol at a higher address in its
// section, or to the section's end.
#pragma once

#include <cstdint>
#include <vector>

namespace dumpsyms {

struct UnsizedSymbol {
  uint32_t section = 0; // any id that tells the sections apart
  uint64_t address = 0;
  uint64_t section_end = 0;
};

// One size per symbol, in their order.
std::vector<uint64_t> sizesToNextSymbol(const std::vector<UnsizedSymbol>& symbols);

} // namespace dumpsyms
