#include "symbol_file/model/module_builder.h"

#include "symbol_file/model/interval_set.h"

#include <algorithm>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <map>
#include <tuple>
#include <unordered_set>

namespace dumpsyms {

namespace {

// Sorted ranges (of every function, or every CFI frame), for "is this
// address covered" questions.
class CoverageIndex {
public:
  explicit CoverageIndex(std::vector<AddressRange> ranges) : ranges_(std::move(ranges)) {
    std::sort(ranges_.begin(), ranges_.end());
  }
  explicit CoverageIndex(const std::vector<Function>& functions) {
    for (const Function& function : functions)
      for (const AddressRange& range : function.ranges)
        ranges_.push_back(range);
    std::sort(ranges_.begin(), ranges_.end());
  }

  bool contains(uint64_t address) const {
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), address,
                               [](uint64_t a, const AddressRange& r) { return a < r.start; });
    return it != ranges_.begin() && std::prev(it)->contains(address);
  }

  // The parts of `range` that no range covers, ascending.
  std::vector<AddressRange> subtractFrom(AddressRange range) const {
    std::vector<AddressRange> out;
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), range.start,
                               [](uint64_t a, const AddressRange& r) { return a < r.start; });
    if (it != ranges_.begin())
      --it;
    uint64_t cursor = range.start;
    for (; it != ranges_.end() && it->start < range.end; ++it) {
      if (it->end <= cursor)
        continue;
      if (it->start > cursor)
        out.push_back({cursor, it->start});
      cursor = std::max(cursor, it->end);
    }
    if (cursor < range.end)
      out.push_back({cursor, range.end});
    return out;
  }

private:
  std::vector<AddressRange> ranges_;
};

// Keeps the parts of sorted `lines` that fall inside sorted `ranges`,
// splitting a line that crosses a range boundary, and drops lines that
// overlap an earlier one. Returns how many lines (or parts) were lost.
uint64_t clipLinesToRanges(std::vector<SourceLine>& lines,
                           const std::vector<AddressRange>& ranges) {
  std::stable_sort(lines.begin(), lines.end(),
                   [](const SourceLine& a, const SourceLine& b) { return a.address < b.address; });
  std::vector<SourceLine> out;
  out.reserve(lines.size());
  uint64_t dropped = 0;
  uint64_t covered_end = 0;
  size_t r = 0;
  for (const SourceLine& line : lines) {
    if (line.size == 0)
      continue;
    AddressRange span{line.address, line.address + line.size};
    if (span.end < span.start)
      span.end = UINT64_MAX;
    if (span.start < covered_end) {
      // Overlaps the previous line: the processor would drop it too.
      ++dropped;
      continue;
    }
    while (r < ranges.size() && ranges[r].end <= span.start)
      ++r;
    bool kept = false;
    for (size_t k = r; k < ranges.size() && ranges[k].start < span.end; ++k) {
      uint64_t start = std::max(span.start, ranges[k].start);
      uint64_t end = std::min(span.end, ranges[k].end);
      if (start < end) {
        out.push_back({start, end - start, line.line, line.file});
        kept = true;
      }
    }
    if (!kept)
      ++dropped;
    covered_end = span.end;
  }
  lines = std::move(out);
  return dropped;
}

// Merges ranges that touch, after sorting.
void coalesce(std::vector<AddressRange>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  std::vector<AddressRange> out;
  for (const AddressRange& range : ranges) {
    if (!out.empty() && out.back().end >= range.start)
      out.back().end = std::max(out.back().end, range.end);
    else
      out.push_back(range);
  }
  ranges = std::move(out);
}

} // namespace

ModuleBuilder::ModuleBuilder(Module header) : module_(std::move(header)) {
  module_.files.clear();
  module_.inline_origins.clear();
  module_.functions.clear();
  module_.publics.clear();
  module_.cfi_frames.clear();
}

void ModuleBuilder::setLoadedRanges(std::vector<AddressRange> ranges) {
  loaded_ = std::move(ranges);
  std::sort(loaded_.begin(), loaded_.end());
}

bool ModuleBuilder::isLoaded(uint64_t address) const {
  if (loaded_.empty())
    return true;
  for (const AddressRange& range : loaded_)
    if (range.contains(address))
      return true;
  return false;
}

uint32_t ModuleBuilder::internFile(const std::string& path) {
  auto [it, inserted] = file_ids_.try_emplace(path, module_.files.size());
  if (inserted)
    module_.files.push_back(path);
  return it->second;
}

uint32_t ModuleBuilder::internOrigin(const std::string& name) {
  auto [it, inserted] = origin_ids_.try_emplace(name, module_.inline_origins.size());
  if (inserted)
    module_.inline_origins.push_back(name);
  return it->second;
}

void ModuleBuilder::addUnit(UnitSymbols unit) {
  std::vector<uint32_t> files;
  files.reserve(unit.files.size());
  for (const std::string& path : unit.files)
    files.push_back(internFile(path));
  std::vector<uint32_t> origins;
  origins.reserve(unit.origins.size());
  for (const std::string& name : unit.origins)
    origins.push_back(internOrigin(name));

  auto remapLines = [&](std::vector<SourceLine>& lines) {
    for (SourceLine& line : lines)
      line.file = files.at(line.file);
  };
  for (Function& function : unit.functions) {
    remapLines(function.lines);
    for (InlineCall& call : function.inlines) {
      call.origin = origins.at(call.origin);
      if (call.call_file)
        call.call_file = files.at(*call.call_file);
    }
    module_.functions.push_back(std::move(function));
  }
  remapLines(unit.unclaimed_lines);
  unclaimed_lines_.insert(unclaimed_lines_.end(), unit.unclaimed_lines.begin(),
                          unit.unclaimed_lines.end());
}

void ModuleBuilder::addCodeSymbol(CodeSymbol symbol) {
  symbols_.push_back(std::move(symbol));
}

void ModuleBuilder::addCfiFrame(CfiFrame frame, CfiSource source) {
  frames_.push_back({std::move(frame), source});
}

void ModuleBuilder::finishFunctions(const BuildOptions& options, BuildStats& stats) {
  std::vector<Function>& functions = module_.functions;

  // Code at address 0 or outside every segment was discarded by the linker.
  for (Function& function : functions) {
    bool had_ranges = !function.ranges.empty();
    std::erase_if(function.ranges, [&](const AddressRange& r) {
      return r.empty() || r.start == 0 || !isLoaded(r.start);
    });
    coalesce(function.ranges);
    if (had_ranges && function.ranges.empty())
      ++stats.functions_outside_segments;
  }
  std::erase_if(functions, [](const Function& f) { return f.ranges.empty(); });

  // One function per entry address: the byte-wise smallest name wins, as the
  // processor would pick it among duplicates.
  // (Sorted by index: a Function is large to move.)
  std::vector<size_t> order(functions.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::forward_as_tuple(functions[a].address(), functions[a].name) <
           std::forward_as_tuple(functions[b].address(), functions[b].name);
  });
  std::vector<Function> unique;
  unique.reserve(functions.size());
  for (size_t index : order) {
    Function& function = functions[index];
    if (!unique.empty() && unique.back().address() == function.address()) {
      if (options.mark_multiple && unique.back().name != function.name)
        unique.back().multiple = true;
      ++stats.functions_merged;
      continue;
    }
    unique.push_back(std::move(function));
  }
  functions = std::move(unique);

  // No two FUNC ranges may overlap: the processor silently drops the later
  // one. Trim a range that starts inside an earlier one.
  struct Piece {
    AddressRange range;
    size_t function;
  };
  std::vector<Piece> pieces;
  for (size_t i = 0; i < functions.size(); ++i) {
    for (const AddressRange& range : functions[i].ranges)
      pieces.push_back({range, i});
    functions[i].ranges.clear();
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
    return std::tie(a.range.start, a.function) < std::tie(b.range.start, b.function);
  });
  uint64_t covered_end = 0;
  for (Piece& piece : pieces) {
    if (piece.range.start < covered_end) {
      ++stats.function_ranges_trimmed;
      if (piece.range.end <= covered_end)
        continue;
      piece.range.start = covered_end;
    }
    covered_end = piece.range.end;
    functions[piece.function].ranges.push_back(piece.range);
  }
  std::erase_if(functions, [](const Function& f) { return f.ranges.empty(); });
  // Each function on its own: a few million lines on a big file, split in
  // one run of functions per thread.
  unsigned threads =
      options.threads ? options.threads : llvm::hardware_concurrency().compute_thread_count();
  size_t runs = std::max<size_t>(1, std::min<size_t>(threads, functions.size() / 1024));
  std::vector<uint64_t> dropped(runs);
  auto clip = [&](size_t run) {
    size_t end = functions.size() * (run + 1) / runs;
    for (size_t i = functions.size() * run / runs; i < end; ++i) {
      coalesce(functions[i].ranges);
      dropped[run] += clipLinesToRanges(functions[i].lines, functions[i].ranges);
    }
  };
  if (runs == 1) {
    clip(0);
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(runs));
    for (size_t run = 0; run < runs; ++run)
      pool.async([&clip, run] { clip(run); });
    pool.wait();
  }
  for (uint64_t count : dropped)
    stats.lines_dropped += count;
}

void ModuleBuilder::addFunctionsForUnclaimedLines(BuildStats& stats) {
  if (unclaimed_lines_.empty())
    return;
  CoverageIndex covered(module_.functions);

  // Symbols by address; at one address the first in table order names it.
  std::vector<const CodeSymbol*> symbols;
  for (const CodeSymbol& symbol : symbols_)
    if (!symbol.name.empty() && symbol.address != 0 && isLoaded(symbol.address))
      symbols.push_back(&symbol);
  std::stable_sort(symbols.begin(), symbols.end(), [](const CodeSymbol* a, const CodeSymbol* b) {
    return a->address < b->address;
  });
  symbols.erase(std::unique(symbols.begin(), symbols.end(),
                            [](const CodeSymbol* a, const CodeSymbol* b) {
                              return a->address == b->address;
                            }),
                symbols.end());

  // The symbol whose code holds `address`: sized symbols cover their size,
  // unsized ones reach to the next symbol.
  auto symbolAt = [&](uint64_t address) -> std::optional<size_t> {
    auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                               [](uint64_t a, const CodeSymbol* s) { return a < s->address; });
    if (it == symbols.begin())
      return std::nullopt;
    size_t index = std::prev(it) - symbols.begin();
    const CodeSymbol* symbol = symbols[index];
    if (symbol->size != 0 && address >= symbol->address + symbol->size)
      return std::nullopt;
    return index;
  };
  auto symbolEnd = [&](size_t index) {
    const CodeSymbol* symbol = symbols[index];
    if (symbol->size != 0)
      return symbol->address + symbol->size;
    return index + 1 < symbols.size() ? symbols[index + 1]->address : UINT64_MAX;
  };

  std::map<size_t, std::vector<SourceLine>> lines_by_symbol;
  for (const SourceLine& line : unclaimed_lines_) {
    if (line.size == 0 || line.address == 0)
      continue;
    for (const AddressRange& part :
         covered.subtractFrom({line.address, line.address + line.size})) {
      uint64_t cursor = part.start;
      while (cursor < part.end) {
        std::optional<size_t> symbol = symbolAt(cursor);
        if (!symbol) {
          ++stats.lines_dropped;
          break;
        }
        uint64_t end = std::min(part.end, symbolEnd(*symbol));
        lines_by_symbol[*symbol].push_back({cursor, end - cursor, line.line, line.file});
        cursor = end;
      }
    }
  }

  for (auto& [index, lines] : lines_by_symbol) {
    const CodeSymbol* symbol = symbols[index];
    std::sort(lines.begin(), lines.end(),
              [](const SourceLine& a, const SourceLine& b) { return a.address < b.address; });
    uint64_t end = symbol->size != 0 ? symbol->address + symbol->size
                                     : lines.back().address + lines.back().size;
    Function function;
    function.name = symbol->name;
    function.ranges = covered.subtractFrom({symbol->address, end});
    stats.lines_dropped += clipLinesToRanges(lines, function.ranges);
    function.lines = std::move(lines);
    if (function.ranges.empty())
      continue;
    ++stats.functions_from_symbols;
    module_.functions.push_back(std::move(function));
  }
  std::stable_sort(module_.functions.begin(), module_.functions.end(),
                   [](const Function& a, const Function& b) { return a.address() < b.address(); });
}

void ModuleBuilder::finishPublics(const BuildOptions& options) {
  CoverageIndex covered(module_.functions);
  std::map<uint64_t, size_t> first_at; // address -> index in publics

  std::vector<PublicSymbol>& publics = module_.publics;
  for (const CodeSymbol& symbol : symbols_) {
    if (symbol.name.empty() || symbol.address == 0 || !isLoaded(symbol.address))
      continue;
    auto [it, inserted] = first_at.try_emplace(symbol.address, publics.size());
    if (!inserted) {
      // Another symbol (an alias, a C1/C2 constructor pair) enters here too.
      if (options.mark_multiple)
        publics[it->second].multiple = true;
      continue;
    }
    publics.push_back({symbol.address, symbol.name, symbol.multiple, symbol.parameter_size});
  }

  // -m: a FUNC shares its entry with other symbols when the symbol table
  // has more than one symbol there.
  if (options.mark_multiple) {
    for (Function& function : module_.functions) {
      auto it = first_at.find(function.address());
      if (it != first_at.end() && publics[it->second].multiple)
        function.multiple = true;
    }
  }

  if (options.publics_inside_functions) {
    std::unordered_set<uint64_t> entries;
    for (const Function& function : module_.functions)
      for (const AddressRange& range : function.ranges)
        entries.insert(range.start);
    std::erase_if(publics, [&](const PublicSymbol& p) { return entries.contains(p.address); });
  } else {
    std::erase_if(publics, [&](const PublicSymbol& p) { return covered.contains(p.address); });
  }
  std::sort(publics.begin(), publics.end(),
            [](const PublicSymbol& a, const PublicSymbol& b) { return a.address < b.address; });
}

void ModuleBuilder::finishCfi(const BuildOptions& options, BuildStats& stats) {
  std::stable_sort(
      frames_.begin(), frames_.end(), [](const SourcedFrame& a, const SourcedFrame& b) {
        return std::tie(a.source, a.frame.range.start) < std::tie(b.source, b.frame.range.start);
      });
  IntervalSet taken;
  std::vector<CfiFrame>& out = module_.cfi_frames;
  for (SourcedFrame& sourced : frames_) {
    CfiFrame& frame = sourced.frame;
    if (frame.range.empty() || !isLoaded(frame.range.start) || frame.initial.empty())
      continue;
    if (taken.overlaps(frame.range)) {
      ++stats.cfi_frames_overlapping;
      continue;
    }
    taken.insert(frame.range);
    std::erase_if(frame.changes, [&](const CfiChange& change) {
      return change.rules.empty() || !frame.range.contains(change.address);
    });
    out.push_back(std::move(frame));
  }
  frames_.clear();
  if (!options.uncovered_function_rules.empty()) {
    std::vector<AddressRange> framed;
    for (const CfiFrame& frame : out)
      framed.push_back(frame.range);
    CoverageIndex covered(std::move(framed));
    for (const Function& function : module_.functions)
      for (const AddressRange& range : function.ranges)
        for (const AddressRange& gap : covered.subtractFrom(range))
          out.push_back({gap, options.uncovered_function_rules, {}});
  }
  std::sort(out.begin(), out.end(),
            [](const CfiFrame& a, const CfiFrame& b) { return a.range.start < b.range.start; });
}

void ModuleBuilder::renumberFilesAndOrigins() {
  std::vector<bool> file_used(module_.files.size()), origin_used(module_.inline_origins.size());
  for (const Function& function : module_.functions) {
    for (const SourceLine& line : function.lines)
      file_used[line.file] = true;
    for (const InlineCall& call : function.inlines) {
      origin_used[call.origin] = true;
      if (call.call_file)
        file_used[*call.call_file] = true;
    }
  }
  // Ids follow the byte-wise order of the names they stand for.
  auto renumber = [](std::vector<std::string>& names, const std::vector<bool>& used) {
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < names.size(); ++i)
      if (used[i])
        order.push_back(i);
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return names[a] < names[b]; });
    std::vector<uint32_t> new_id(names.size(), UINT32_MAX);
    std::vector<std::string> sorted;
    sorted.reserve(order.size());
    for (uint32_t old : order) {
      new_id[old] = sorted.size();
      sorted.push_back(std::move(names[old]));
    }
    names = std::move(sorted);
    return new_id;
  };
  std::vector<uint32_t> file_id = renumber(module_.files, file_used);
  std::vector<uint32_t> origin_id = renumber(module_.inline_origins, origin_used);
  for (Function& function : module_.functions) {
    for (SourceLine& line : function.lines)
      line.file = file_id[line.file];
    for (InlineCall& call : function.inlines) {
      call.origin = origin_id[call.origin];
      if (call.call_file)
        call.call_file = file_id[*call.call_file];
    }
  }
}

Module ModuleBuilder::finish(const BuildOptions& options, BuildStats& stats) && {
  if (!options.keep_inlines)
    for (Function& function : module_.functions)
      function.inlines.clear();
  finishFunctions(options, stats);
  addFunctionsForUnclaimedLines(stats);
  finishPublics(options);
  finishCfi(options, stats);
  renumberFilesAndOrigins();
  return std::move(module_);
}

} // namespace dumpsyms
