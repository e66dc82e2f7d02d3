#include "macho/macho_symbols.h"

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
  // Sizes: to the next symbol at a higher address in the same section, or
  // to the section's end.
  std::map<uint32_t, std::vector<uint64_t>> starts;
  for (const Entry& entry : entries)
    starts[entry.section].push_back(entry.address);
  for (auto& [section, addresses] : starts) {
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  }
  std::vector<CodeSymbol> out;
  out.reserve(entries.size());
  for (Entry& entry : entries) {
    const MachOSection& section = sections[entry.section - 1];
    uint64_t end = section.address + section.size;
    const std::vector<uint64_t>& addresses = starts[entry.section];
    auto next = std::upper_bound(addresses.begin(), addresses.end(), entry.address);
    if (next != addresses.end())
      end = std::min(end, *next);
    uint64_t size = end > entry.address ? end - entry.address : 0;
    out.push_back({entry.address, size, std::move(entry.name)});
  }
  return out;
}

} // namespace dumpsyms
