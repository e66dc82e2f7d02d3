// The code symbols of a PE's COFF symbol table, which MinGW's linkers keep
// in every image they do not strip: functions (complex type function) and
// the external labels of code sections (hand-written assembly, like the
// CRT's ___chkstk_ms), with their names as the table spells them (x86 C
// names with their leading underscore and any @N suffix). Section symbols
// (".text") and local labels are left out. COFF symbols have no size: each
// runs to the next symbol of its section, or the section's end.
#pragma once

#include "dump/pe/pe_image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct CoffSymbol {
  uint64_t address = 0; // ImageBase + RVA
  uint64_t size = 0;
  std::string name; // raw
};

struct CoffSymbols {
  std::vector<CoffSymbol> symbols; // in table order
  size_t unreadable = 0;           // entries whose names are outside the string table
};

CoffSymbols readCoffCodeSymbols(const PeImage& pe);

} // namespace dumpsyms
