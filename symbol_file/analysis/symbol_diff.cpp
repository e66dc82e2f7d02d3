#include "symbol_file/analysis/symbol_diff.h"

#include <map>
#include <tuple>

namespace dumpsyms {

namespace {

// One FUNC record's identity and its lines, relative to its start.
struct Entry {
  uint64_t address = 0;
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t, std::string>> lines;
};

// name -> its FUNC records, by address (a name may have several: clones,
// hot and cold parts).
std::map<std::string, std::multimap<uint64_t, Entry>> index(const Module& module) {
  std::map<std::string, std::multimap<uint64_t, Entry>> out;
  for (const Function& f : module.functions)
    for (const AddressRange& range : f.ranges) {
      Entry entry;
      entry.address = range.start;
      for (const SourceLine& l : f.lines)
        if (range.contains(l.address))
          entry.lines.emplace_back(l.address - range.start, l.size, l.line,
                                   l.file < module.files.size() ? module.files[l.file] : "");
      out[f.name].emplace(range.start, std::move(entry));
    }
  return out;
}

} // namespace

SymbolDiff diffSymbols(const Module& a, const Module& b) {
  SymbolDiff diff;
  diff.header_differs = std::tie(a.os, a.cpu, a.debug_id, a.name, a.code_id, a.code_file) !=
                        std::tie(b.os, b.cpu, b.debug_id, b.name, b.code_id, b.code_file);
  auto before = index(a), after = index(b);
  for (auto& [name, old_entries] : before) {
    auto found = after.find(name);
    if (found == after.end()) {
      for (size_t i = 0; i < old_entries.size(); ++i)
        diff.removed.push_back(name);
      continue;
    }
    auto& new_entries = found->second;
    // Records at the same address pair up first; the rest pair up in
    // address order as moves; what is left over was added or removed.
    std::vector<const Entry*> old_left, new_left;
    for (auto& [address, entry] : old_entries) {
      auto same = new_entries.find(address);
      if (same == new_entries.end()) {
        old_left.push_back(&entry);
        continue;
      }
      if (same->second.lines != entry.lines)
        diff.lines_changed.push_back(name);
      new_entries.erase(same);
    }
    for (auto& [address, entry] : new_entries)
      new_left.push_back(&entry);
    size_t pairs = std::min(old_left.size(), new_left.size());
    for (size_t i = 0; i < pairs; ++i) {
      diff.moved.push_back({name, old_left[i]->address, new_left[i]->address});
      if (old_left[i]->lines != new_left[i]->lines)
        diff.lines_changed.push_back(name);
    }
    for (size_t i = pairs; i < old_left.size(); ++i)
      diff.removed.push_back(name);
    for (size_t i = pairs; i < new_left.size(); ++i)
      diff.added.push_back(name);
    after.erase(found);
  }
  for (auto& [name, entries] : after)
    for (size_t i = 0; i < entries.size(); ++i)
      diff.added.push_back(name);
  return diff;
}

} // namespace dumpsyms
