#include "dump/pe/coff_symbols.h"

#include "dump/object/symbol_sizes.h"

#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

using namespace llvm;

CoffSymbols readCoffCodeSymbols(const PeImage& pe) {
  CoffSymbols out;
  const object::COFFObjectFile& coff = pe.coff();
  const std::vector<PeSection>& sections = pe.sections();
  struct Entry {
    uint32_t rva;
    int32_t section; // 1-based
    std::string name;
  };
  std::vector<Entry> entries;
  // (an image without a symbol table, or with one the header places
  // outside the file, has no symbols: LLVM then iterates nothing)
  for (const object::SymbolRef& ref : coff.symbols()) {
    object::COFFSymbolRef symbol = coff.getCOFFSymbol(ref);
    int32_t number = symbol.getSectionNumber();
    if (number <= 0 || uint32_t(number) > sections.size())
      continue;
    const PeSection& section = sections[number - 1];
    if (!section.holdsCode() || symbol.getValue() >= section.virtual_size)
      continue;
    // (GCC gives a static function an auxiliary record, which LLVM takes
    // for a section definition's: the function type tells them apart)
    bool function = symbol.getComplexType() == COFF::IMAGE_SYM_DTYPE_FUNCTION;
    if (symbol.isSectionDefinition() && !function)
      continue;
    bool external = symbol.getStorageClass() == COFF::IMAGE_SYM_CLASS_EXTERNAL;
    if (!function && !external)
      continue; // local labels
    Expected<StringRef> name = coff.getSymbolName(symbol);
    if (!name) {
      consumeError(name.takeError());
      ++out.unreadable;
      continue;
    }
    if (name->empty() || name->starts_with("."))
      continue;
    entries.push_back({section.rva + symbol.getValue(), number, name->str()});
  }
  std::vector<UnsizedSymbol> unsized;
  unsized.reserve(entries.size());
  for (const Entry& entry : entries) {
    const PeSection& section = sections[entry.section - 1];
    unsized.push_back(
        {uint32_t(entry.section), entry.rva, uint64_t(section.rva) + section.virtual_size});
  }
  std::vector<uint64_t> sizes = sizesToNextSymbol(unsized);
  for (size_t i = 0; i < entries.size(); ++i)
    out.symbols.push_back({pe.imageBase() + entries[i].rva, sizes[i], std::move(entries[i].name)});
  return out;
}

} // namespace dumpsyms
