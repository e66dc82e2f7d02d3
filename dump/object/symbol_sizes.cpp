#include "dump/object/symbol_sizes.h"

#include <algorithm>
#include <map>

namespace dumpsyms {

std::vector<uint64_t> sizesToNextSymbol(const std::vector<UnsizedSymbol>& symbols) {
  std::map<uint32_t, std::vector<uint64_t>> starts;
  for (const UnsizedSymbol& symbol : symbols)
    starts[symbol.section].push_back(symbol.address);
  for (auto& [section, addresses] : starts) {
    std::sort(addresses.begin(), addresses.end());
    addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  }
  std::vector<uint64_t> sizes;
  sizes.reserve(symbols.size());
  for (const UnsizedSymbol& symbol : symbols) {
    uint64_t end = symbol.section_end;
    const std::vector<uint64_t>& addresses = starts[symbol.section];
    auto next = std::upper_bound(addresses.begin(), addresses.end(), symbol.address);
    if (next != addresses.end())
      end = std::min(end, *next);
    sizes.push_back(end > symbol.address ? end - symbol.address : 0);
  }
  return sizes;
}

} // namespace dumpsyms
