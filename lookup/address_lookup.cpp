#include "lookup/address_lookup.h"

#include <algorithm>

namespace dumpsyms {

AddressLookup::AddressLookup(Module module) : module_(std::move(module)) {
  for (size_t f = 0; f < module_.functions.size(); ++f)
    for (const AddressRange& range : module_.functions[f].ranges)
      ranges_.push_back({range.start, range.end, f});
  std::stable_sort(
      ranges_.begin(), ranges_.end(),
      [](const FunctionRange& a, const FunctionRange& b) { return a.start < b.start; });
  for (size_t p = 0; p < module_.publics.size(); ++p)
    if (module_.publics[p].address != 0) // the processor discards PUBLIC 0
      publics_.push_back(p);
  std::stable_sort(publics_.begin(), publics_.end(), [&](size_t a, size_t b) {
    return module_.publics[a].address < module_.publics[b].address;
  });
}

AddressInfo AddressLookup::lookup(uint64_t address) const {
  AddressInfo info;
  // The last FUNC range starting at or below the address.
  auto after = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                                [](uint64_t a, const FunctionRange& r) { return a < r.start; });
  if (after != ranges_.begin() && address < std::prev(after)->end) {
    const FunctionRange& range = *std::prev(after);
    const Function& function = module_.functions[range.function];
    info.function_start = range.start;
    auto fileName = [&](std::optional<uint32_t> id) {
      return id && *id < module_.files.size() ? module_.files[*id] : std::string();
    };
    // The line record at the address: where the innermost frame is.
    std::string file;
    uint32_t line = 0;
    auto row = std::upper_bound(function.lines.begin(), function.lines.end(), address,
                                [](uint64_t a, const SourceLine& l) { return a < l.address; });
    if (row != function.lines.begin() && address < std::prev(row)->address + std::prev(row)->size) {
      file = fileName(std::prev(row)->file);
      line = std::prev(row)->line;
      info.line_start = std::prev(row)->address;
    }
    info.parameter_size = function.parameter_size;
    // The chain of inlined calls holding the address: records come in
    // pre-order, so each level's match follows its parent's.
    std::vector<const InlineCall*> chain;
    for (const InlineCall& call : function.inlines) {
      if (call.depth != chain.size())
        continue;
      bool holds = std::any_of(call.ranges.begin(), call.ranges.end(),
                               [&](const AddressRange& r) { return r.contains(address); });
      if (holds)
        chain.push_back(&call);
    }
    // Innermost first: each inlined function at the position inside it,
    // then its caller at the call site, out to the FUNC.
    for (size_t i = chain.size(); i-- > 0;) {
      const InlineCall& call = *chain[i];
      std::string name = call.origin < module_.inline_origins.size()
                             ? module_.inline_origins[call.origin]
                             : std::string();
      uint64_t start = 0;
      for (const AddressRange& r : call.ranges)
        if (r.contains(address))
          start = r.start;
      info.frames.push_back({name, file, line, true, start});
      file = fileName(call.call_file);
      line = call.call_line;
    }
    info.frames.push_back({function.name, file, line, false, range.start});
    return info;
  }
  // The nearest PUBLIC below, unless a FUNC starts between it and the
  // address (as the processor: the PUBLIC must lie above that FUNC's start).
  auto above =
      std::upper_bound(publics_.begin(), publics_.end(), address,
                       [&](uint64_t a, size_t p) { return a < module_.publics[p].address; });
  if (above == publics_.begin())
    return info;
  const PublicSymbol& symbol = module_.publics[*std::prev(above)];
  if (after != ranges_.begin() && std::prev(after)->start >= symbol.address)
    return info;
  info.public_name = symbol.name;
  info.public_offset = address - symbol.address;
  info.parameter_size = symbol.parameter_size;
  return info;
}

} // namespace dumpsyms
