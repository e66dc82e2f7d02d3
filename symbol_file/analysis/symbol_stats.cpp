#include "symbol_file/analysis/symbol_stats.h"

#include <algorithm>

namespace dumpsyms {

namespace {

// Bytes in the union of `ranges`.
uint64_t unionSize(std::vector<AddressRange> ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t total = 0, covered_to = 0;
  for (const AddressRange& r : ranges) {
    uint64_t start = std::max(r.start, covered_to);
    if (r.end > start) {
      total += r.end - start;
      covered_to = r.end;
    }
  }
  return total;
}

} // namespace

SymbolStats computeStats(const Module& module, size_t largest_count) {
  SymbolStats stats;
  stats.records.files = module.files.size();
  stats.records.inline_origins = module.inline_origins.size();
  stats.records.publics = module.publics.size();
  stats.records.cfi_frames = module.cfi_frames.size();
  stats.records.stack_win = module.stack_win.size();
  std::vector<AddressRange> functions, lines, cfi;
  for (const Function& f : module.functions) {
    stats.records.functions += f.ranges.size();
    stats.records.lines += f.lines.size();
    stats.records.inlines += f.inlines.size();
    uint64_t size = 0;
    for (const AddressRange& r : f.ranges) {
      functions.push_back(r);
      size += r.size();
    }
    for (const SourceLine& l : f.lines)
      lines.push_back({l.address, l.address + l.size});
    stats.largest.push_back({f.name, size});
  }
  for (const CfiFrame& frame : module.cfi_frames) {
    cfi.push_back(frame.range);
    stats.records.cfi_changes += frame.changes.size();
  }
  std::vector<AddressRange> code = functions;
  code.insert(code.end(), cfi.begin(), cfi.end());
  for (const StackWinRecord& r : module.stack_win)
    code.push_back({r.address, r.address + r.code_size});
  stats.code_bytes = unionSize(code);
  stats.function_bytes = unionSize(functions);
  stats.line_bytes = unionSize(lines);
  stats.cfi_bytes = unionSize(cfi);
  std::stable_sort(stats.largest.begin(), stats.largest.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (stats.largest.size() > largest_count)
    stats.largest.resize(largest_count);
  return stats;
}

} // namespace dumpsyms
