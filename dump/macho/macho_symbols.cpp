#include "dump/macho/macho_symbols.h"

#include "dump/object/symbol_sizes.h"

#include <algorithm>
#include <map>

namespace dumpsyms {

using namespace llvm;

std::vector<CodeSymbol> readMachOSymbols(const MachOImage& image, NameStyle style,
                                         Diagnostics& diagnostics) {
  const object::MachOObjectFile& object = image.object();
  const std::vector<MachOSection>& sections = image.sections();
  struct Entry {
    uint64_t address;
    uint32_t section;
    std::string name;
  };
  std::vector<Entry> entries;
  size_t unreadable = 0;
  for (const object::SymbolRef& symbol : object.symbols()) {
    object::DataRefImpl ref = symbol.getRawDataRefImpl();
    uint8_t type, section;
    uint64_t value;
    if (object.is64Bit()) {
      MachO::nlist_64 entry = object.getSymbol64TableEntry(ref);
      type = entry.n_type, section = entry.n_sect, value = entry.n_value;
    } else {
      MachO::nlist entry = object.getSymbolTableEntry(ref);
      type = entry.n_type, section = entry.n_sect, value = entry.n_value;
    }
    // (the image's header symbols, __mh_execute_header and the like, name
    // the __TEXT segment's start, outside its code section)
    if ((type & MachO::N_STAB) || (type & MachO::N_TYPE) != MachO::N_SECT || section == 0 ||
        section > sections.size() || !sections[section - 1].holdsCode() ||
        value < sections[section - 1].address ||
        value - sections[section - 1].address >= sections[section - 1].size)
      continue;
    Expected<StringRef> name = symbol.getName();
    if (!name) {
      consumeError(name.takeError());
      ++unreadable;
      continue;
    }
    StringRef text = *name;
    if (text.empty())
      continue;
    text.consume_front("_"); // the C prefix (C++'s __Z becomes _Z)
    entries.push_back({value, section, demangleSymbol(text, style)});
  }
  if (unreadable)
    diagnostics.warn(image.path() + ": " + std::to_string(unreadable) +
                     " symbol-table entries with names outside the string table were left out");
  std::vector<UnsizedSymbol> unsized;
  unsized.reserve(entries.size());
  for (const Entry& entry : entries) {
    const MachOSection& section = sections[entry.section - 1];
    unsized.push_back({entry.section, entry.address, section.address + section.size});
  }
  std::vector<uint64_t> sizes = sizesToNextSymbol(unsized);
  std::vector<CodeSymbol> out;
  out.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i)
    out.push_back({entries[i].address, sizes[i], std::move(entries[i].name)});
  return out;
}

} // namespace dumpsyms
