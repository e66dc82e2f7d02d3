#include "dump/object/symbol_table.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <tuple>
#include <unordered_set>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

template <typename Range>
void collect(const ElfImage& image, Range symbols, NameStyle style, std::vector<CodeSymbol>& out,
             Diagnostics& diagnostics) {
  size_t bad = 0;
  for (ELFSymbolRef symbol : symbols) {
    uint8_t type = symbol.getELFType();
    if (type != ELF::STT_FUNC && type != ELF::STT_GNU_IFUNC)
      continue;
    auto flags = symbol.getFlags();
    if (!flags || (*flags & SymbolRef::SF_Undefined)) {
      if (!flags)
        consumeError(flags.takeError());
      continue;
    }
    auto name = symbol.getName();
    auto address = symbol.getAddress();
    if (!name || !address) {
      if (!name)
        consumeError(name.takeError());
      if (!address)
        consumeError(address.takeError());
      ++bad;
      continue;
    }
    out.push_back({*address, symbol.getSize(), demangleSymbol(*name, style)});
  }
  if (bad)
    diagnostics.warn(image.path() + ": " + std::to_string(bad) +
                     " unreadable symbol-table entries");
}

// Moves each size-0 symbol that shares its address with a sized one behind
// every other symbol, keeping table order otherwise: the builder names
// code after the first symbol at its address.
void putLabelsLast(std::vector<CodeSymbol>& symbols) {
  std::unordered_set<uint64_t> sized;
  for (const CodeSymbol& symbol : symbols)
    if (symbol.size != 0)
      sized.insert(symbol.address);
  std::stable_partition(symbols.begin(), symbols.end(), [&](const CodeSymbol& symbol) {
    return symbol.size != 0 || !sized.contains(symbol.address);
  });
}

} // namespace

// LLVM's symbol iterators abort the process on a malformed table, so each
// table is checked first: whole entries, inside the file, and a string
// table that exists.
bool wellFormed(const ElfImage& image, const ElfSection& table, Diagnostics& diagnostics) {
  uint64_t entry = image.is64Bit() ? sizeof(ELF::Elf64_Sym) : sizeof(ELF::Elf32_Sym);
  std::string problem;
  if (table.entry_size != entry)
    problem =
        "entries of " + std::to_string(table.entry_size) + " bytes, not " + std::to_string(entry);
  else if (table.size % entry != 0)
    problem = "its size is not a whole number of entries";
  else if (table.link >= image.sections().size() ||
           image.sections()[table.link].type != ELF::SHT_STRTAB)
    problem = "it names no string table";
  if (!problem.empty())
    diagnostics.warn(image.path() + ": symbol table " + table.name + " is corrupt (" + problem +
                     "); its symbols are not used");
  return problem.empty();
}

std::vector<CodeSymbol> readCodeSymbols(const ElfImage& image, NameStyle style,
                                        Diagnostics& diagnostics) {
  std::vector<CodeSymbol> out;
  const ElfSection* symtab = nullptr;
  const ElfSection* dynsym = nullptr;
  for (const ElfSection& section : image.sections()) {
    if (section.type == ELF::SHT_SYMTAB && !symtab)
      symtab = &section;
    if (section.type == ELF::SHT_DYNSYM && !dynsym)
      dynsym = &section;
  }
  if (symtab) {
    if (wellFormed(image, *symtab, diagnostics))
      collect(image, image.object().symbols(), style, out, diagnostics);
  } else if (dynsym && wellFormed(image, *dynsym, diagnostics)) {
    collect(image, image.object().getDynamicSymbolIterators(), style, out, diagnostics);
  }
  if (style == NameStyle::Llvm)
    putLabelsLast(out);
  return out;
}

} // namespace dumpsyms

namespace dumpsyms {

SymbolIndex::SymbolIndex(const std::vector<CodeSymbol>& symbols) {
  std::vector<std::tuple<uint64_t, bool, const std::string*>> entries;
  for (const CodeSymbol& symbol : symbols)
    if (!symbol.name.empty())
      entries.push_back({symbol.address, symbol.size == 0, &symbol.name});
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  by_address_.reserve(entries.size());
  for (const auto& [address, label, name] : entries)
    by_address_.push_back({address, name});
}

const std::string* SymbolIndex::nameAt(uint64_t address) const {
  auto it = std::lower_bound(by_address_.begin(), by_address_.end(), address,
                             [](const auto& entry, uint64_t a) { return entry.first < a; });
  if (it == by_address_.end() || it->first != address)
    return nullptr;
  return it->second;
}

} // namespace dumpsyms
