#include "symbol_file/analysis/symbol_coverage.h"

#include <algorithm>
#include <array>
#include <limits>

namespace dumpsyms {

namespace {

// address + size without wrapping past the top of the address space (a
// damaged file may ask for it; the parser refuses most such records).
uint64_t endOf(uint64_t address, uint64_t size) {
  return size > std::numeric_limits<uint64_t>::max() - address
             ? std::numeric_limits<uint64_t>::max()
             : address + size;
}

// `ranges` made their union: ascending, disjoint, non-adjacent ranges.
void mergeInPlace(std::vector<AddressRange>& ranges) {
  if (!std::is_sorted(ranges.begin(), ranges.end()))
    std::sort(ranges.begin(), ranges.end());
  size_t out = 0;
  for (const AddressRange& r : ranges) {
    if (r.empty())
      continue;
    if (out > 0 && r.start <= ranges[out - 1].end)
      ranges[out - 1].end = std::max(ranges[out - 1].end, r.end);
    else
      ranges[out++] = r;
  }
  ranges.resize(out);
}

std::vector<AddressRange> merged(std::vector<AddressRange> ranges) {
  mergeInPlace(ranges);
  return ranges;
}

// Whether a range of `ranges` (as merged() returns them) shares a byte with `r`.
bool touches(const std::vector<AddressRange>& ranges, const AddressRange& r) {
  auto it =
      std::upper_bound(ranges.begin(), ranges.end(), r.start,
                       [](uint64_t address, const AddressRange& m) { return address < m.end; });
  return it != ranges.end() && it->start < r.end;
}

// `line` cut to the parts inside `ranges` (ascending, disjoint), appended to `out`.
void clipInto(const std::vector<AddressRange>& ranges, const AddressRange& line,
              std::vector<AddressRange>& out) {
  auto it =
      std::upper_bound(ranges.begin(), ranges.end(), line.start,
                       [](uint64_t address, const AddressRange& m) { return address < m.end; });
  for (; it != ranges.end() && it->start < line.end; ++it)
    out.push_back({std::max(it->start, line.start), std::min(it->end, line.end)});
}

// Appends [start, end) of `kind` to `runs`, merged into the last run when
// they meet and are of one kind.
void appendRun(std::vector<CoverageRun>& runs, uint64_t start, uint64_t end, CoverageKind kind) {
  if (end <= start)
    return;
  if (!runs.empty() && runs.back().end == start && runs.back().kind == kind)
    runs.back().end = end;
  else
    runs.push_back({start, end, kind});
}

// One side of a range in the sweep: which layer it belongs to and whether
// the layer deepens (+1) or ends (-1) at `address`.
struct Boundary {
  uint64_t address;
  int layer; // kFunction, kLine, kPublic
  int delta;
};
constexpr int kFunction = 0, kLine = 1, kPublic = 2;

void addRange(std::vector<Boundary>& boundaries, const AddressRange& r, int layer) {
  if (r.empty())
    return;
  boundaries.push_back({r.start, layer, +1});
  boundaries.push_back({r.end, layer, -1});
}

CoverageKind kindOf(const std::array<long, 3>& depth) {
  if (depth[kFunction] > 0)
    return depth[kLine] > 0 ? CoverageKind::FunctionWithLines : CoverageKind::FunctionWithoutLines;
  return depth[kPublic] > 0 ? CoverageKind::PublicOnly : CoverageKind::Nothing;
}

// The largest `count` of `candidates`, largest first, ties by address.
std::vector<CoverageFunction> largest(std::vector<CoverageFunction> candidates, size_t count) {
  auto order = [](const CoverageFunction& a, const CoverageFunction& b) {
    return a.size != b.size ? a.size > b.size : a.address < b.address;
  };
  count = std::min(count, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + count, candidates.end(), order);
  candidates.resize(count);
  return candidates;
}

} // namespace

const char* coverageKindName(CoverageKind kind) {
  switch (kind) {
  case CoverageKind::FunctionWithLines:
    return "func-lines";
  case CoverageKind::FunctionWithoutLines:
    return "func-no-lines";
  case CoverageKind::PublicOnly:
    return "public";
  case CoverageKind::Nothing:
    break;
  }
  return "none";
}

SymbolCoverage computeCoverage(const Module& module, size_t largest_count) {
  SymbolCoverage coverage;
  std::vector<Boundary> boundaries;
  std::vector<AddressRange> cfi, unwind; // unwind: STACK CFI and STACK WIN
  std::vector<uint64_t> function_starts;
  bool any = false;
  uint64_t low = std::numeric_limits<uint64_t>::max(), high = 0;
  auto see = [&](const AddressRange& r) {
    if (r.empty())
      return;
    any = true;
    low = std::min(low, r.start);
    high = std::max(high, r.end);
  };

  std::vector<AddressRange> own_ranges, own_lines;
  for (const Function& f : module.functions) {
    // A line record counts where it lies inside its own FUNC's ranges: a
    // byte is then covered once, whatever other FUNCs overlap it.
    own_ranges.assign(f.ranges.begin(), f.ranges.end());
    mergeInPlace(own_ranges);
    for (const AddressRange& r : own_ranges) {
      see(r);
      addRange(boundaries, r, kFunction);
      function_starts.push_back(r.start);
    }
    own_lines.clear();
    for (const SourceLine& l : f.lines)
      clipInto(own_ranges, {l.address, endOf(l.address, l.size)}, own_lines);
    mergeInPlace(own_lines);
    for (const AddressRange& r : own_lines)
      addRange(boundaries, r, kLine);
  }
  for (const CfiFrame& frame : module.cfi_frames) {
    see(frame.range);
    cfi.push_back(frame.range);
  }
  unwind = cfi;
  for (const StackWinRecord& r : module.stack_win) {
    AddressRange range{r.address, endOf(r.address, r.code_size)};
    see(range);
    unwind.push_back(range);
  }

  // A PUBLIC reaches up to the next FUNC start or PUBLIC above it; the
  // highest one to the end of the other records, or one byte past itself.
  std::vector<uint64_t> publics;
  for (const PublicSymbol& p : module.publics)
    publics.push_back(p.address);
  std::sort(publics.begin(), publics.end());
  publics.erase(std::unique(publics.begin(), publics.end()), publics.end());
  std::sort(function_starts.begin(), function_starts.end());
  uint64_t others_end = high;
  for (size_t i = 0; i < publics.size(); ++i) {
    uint64_t start = publics[i];
    uint64_t end = i + 1 < publics.size() ? publics[i + 1] : std::numeric_limits<uint64_t>::max();
    auto next_function = std::upper_bound(function_starts.begin(), function_starts.end(), start);
    if (next_function != function_starts.end())
      end = std::min(end, *next_function);
    if (end == std::numeric_limits<uint64_t>::max())
      end = others_end > start ? others_end : endOf(start, 1);
    AddressRange extent{start, end};
    see(extent);
    addRange(boundaries, extent, kPublic);
  }
  if (!any)
    return coverage;
  coverage.start = low;
  coverage.end = high;

  // The sweep: at each boundary address every layer's depth changes, and
  // the span up to the next boundary is of the kind the depths make.
  std::sort(boundaries.begin(), boundaries.end(),
            [](const Boundary& a, const Boundary& b) { return a.address < b.address; });
  std::array<long, 3> depth{};
  std::array<uint64_t*, 4> bytes{&coverage.with_lines, &coverage.without_lines,
                                 &coverage.public_only, &coverage.nothing};
  uint64_t at = low;
  for (size_t i = 0; i < boundaries.size();) {
    uint64_t address = boundaries[i].address;
    CoverageKind kind = kindOf(depth);
    appendRun(coverage.runs, at, address, kind);
    *bytes[static_cast<size_t>(kind)] += address - at;
    for (; i < boundaries.size() && boundaries[i].address == address; ++i)
      depth[boundaries[i].layer] += boundaries[i].delta;
    at = address;
  }
  // Past the last FUNC, line or PUBLIC boundary: STACK CFI or STACK WIN alone.
  appendRun(coverage.runs, at, high, CoverageKind::Nothing);
  coverage.nothing += high - at;

  std::vector<AddressRange> cfi_union = merged(std::move(cfi));
  at = low;
  for (const AddressRange& r : cfi_union) {
    if (r.start > at)
      coverage.cfi_runs.push_back({{at, r.start}, false});
    coverage.cfi_runs.push_back({{r.start, r.end}, true});
    coverage.cfi_bytes += r.size();
    at = r.end;
  }
  if (at < high)
    coverage.cfi_runs.push_back({{at, high}, false});

  std::vector<AddressRange> unwind_union = merged(std::move(unwind));
  std::vector<CoverageFunction> without_cfi, without_lines;
  for (const Function& f : module.functions) {
    uint64_t size = 0;
    bool unwound = false;
    for (const AddressRange& r : f.ranges) {
      if (r.empty())
        continue;
      size += r.size();
      unwound = unwound || touches(unwind_union, r);
    }
    if (size == 0)
      continue;
    CoverageFunction entry{f.name, f.address(), size};
    if (!unwound)
      without_cfi.push_back(entry);
    if (f.lines.empty())
      without_lines.push_back(std::move(entry));
  }
  coverage.largest_without_cfi = largest(std::move(without_cfi), largest_count);
  coverage.largest_without_lines = largest(std::move(without_lines), largest_count);
  return coverage;
}

std::vector<CoverageRun> coverageBuckets(const std::vector<CoverageRun>& runs, size_t buckets) {
  std::vector<CoverageRun> out;
  if (runs.empty() || buckets == 0)
    return out;
  uint64_t start = runs.front().start, end = runs.back().end;
  if (end <= start)
    return out;
  uint64_t span = end - start;
  uint64_t width = span / buckets + (span % buckets != 0);
  size_t next = 0; // the first run that may still reach into a bucket
  for (uint64_t from = start; from < end;) {
    uint64_t to = width > end - from ? end : from + width;
    std::array<uint64_t, 4> bytes{};
    uint64_t covered = 0;
    while (next < runs.size() && runs[next].end <= from)
      ++next;
    for (size_t i = next; i < runs.size() && runs[i].start < to; ++i) {
      if (runs[i].end <= from)
        continue; // only where a caller's runs overlap
      uint64_t overlap = std::min(runs[i].end, to) - std::max(runs[i].start, from);
      bytes[static_cast<size_t>(runs[i].kind)] += overlap;
      covered += overlap;
    }
    // Bytes between runs (runs computeCoverage made have none) are nothing.
    if (covered < to - from)
      bytes[static_cast<size_t>(CoverageKind::Nothing)] += (to - from) - covered;
    // The kind with the most bytes; a tie goes to the kind listed first.
    size_t best = 0;
    for (size_t k = 1; k < bytes.size(); ++k)
      if (bytes[k] > bytes[best])
        best = k;
    out.push_back({from, to, static_cast<CoverageKind>(best)});
    from = to;
  }
  return out;
}

} // namespace dumpsyms
