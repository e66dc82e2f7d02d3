#include "object/symbol_table.h"

#include "object/demangle.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

template <typename Range>
void collect(const ElfImage& image, Range symbols, std::vector<CodeSymbol>& out,
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
    out.push_back({*address, symbol.getSize(), demangle(*name)});
  }
  if (bad)
    diagnostics.warn(image.path() + ": " + std::to_string(bad) +
                     " unreadable symbol-table entries");
}

} // namespace

std::vector<CodeSymbol> readCodeSymbols(const ElfImage& image, Diagnostics& diagnostics) {
  std::vector<CodeSymbol> out;
  bool has_symtab = false;
  for (const ElfSection& section : image.sections())
    if (section.type == ELF::SHT_SYMTAB)
      has_symtab = true;
  if (has_symtab)
    collect(image, image.object().symbols(), out, diagnostics);
  else
    collect(image, image.object().getDynamicSymbolIterators(), out, diagnostics);
  return out;
}

} // namespace dumpsyms

namespace dumpsyms {

SymbolIndex::SymbolIndex(const std::vector<CodeSymbol>& symbols) {
  for (const CodeSymbol& symbol : symbols)
    if (!symbol.name.empty())
      by_address_.push_back({symbol.address, &symbol.name});
  std::stable_sort(by_address_.begin(), by_address_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
}

const std::string* SymbolIndex::nameAt(uint64_t address) const {
  auto it = std::lower_bound(by_address_.begin(), by_address_.end(), address,
                             [](const auto& entry, uint64_t a) { return entry.first < a; });
  if (it == by_address_.end() || it->first != address)
    return nullptr;
  return it->second;
}

} // namespace dumpsyms
