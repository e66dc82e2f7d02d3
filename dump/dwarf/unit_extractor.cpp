#include "dump/dwarf/unit_extractor.h"

#include "common/limits/input_limits.h"
#include "dump/dwarf/breakpad_names.h"
#include "dump/dwarf/function_names.h"
#include "dump/dwarf/unit_line_table.h"

#include <algorithm>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <tuple>
#include <unordered_map>

namespace dumpsyms {

using namespace llvm;

namespace {

std::vector<AddressRange> codeRanges(DWARFDie die, std::vector<std::string>& warnings) {
  std::vector<AddressRange> out;
  auto ranges = die.getAddressRanges();
  if (!ranges) {
    warnings.push_back("DIE at offset 0x" + utohexstr(die.getOffset()) +
                       ": bad address ranges: " + toString(ranges.takeError()));
    return out;
  }
  for (const DWARFAddressRange& range : *ranges)
    if (range.HighPC > range.LowPC && range.LowPC != 0)
      out.push_back({range.LowPC, range.HighPC});
  return out;
}

// Where a function is entered: DW_AT_entry_pc, else DW_AT_low_pc, else the
// first range as listed (compilers list the hot part before `.cold` ones).
uint64_t entryAddress(DWARFDie die, const std::vector<AddressRange>& listed) {
  if (auto entry = dwarf::toAddress(die.find(dwarf::DW_AT_entry_pc)))
    return *entry;
  if (auto low = dwarf::toAddress(die.find(dwarf::DW_AT_low_pc)))
    return *low;
  return listed.empty() ? 0 : listed.front().start;
}

// Splits sorted line records among sorted, non-overlapping owner ranges:
// the parts inside a range go to its owner, the rest to `unclaimed`.
struct OwnedRange {
  AddressRange range;
  size_t owner;
};

void distributeLines(const std::vector<SourceLine>& records, const std::vector<OwnedRange>& owners,
                     std::vector<Function>& functions, std::vector<SourceLine>& unclaimed) {
  size_t first = 0;
  for (const SourceLine& record : records) {
    uint64_t end = record.address + record.size;
    while (first < owners.size() && owners[first].range.end <= record.address)
      ++first;
    uint64_t cursor = record.address;
    for (size_t k = first; k < owners.size() && owners[k].range.start < end; ++k) {
      const AddressRange& range = owners[k].range;
      if (range.start > cursor)
        unclaimed.push_back({cursor, range.start - cursor, record.line, record.file});
      uint64_t piece_start = std::max(cursor, range.start);
      uint64_t piece_end = std::min(end, range.end);
      if (piece_start < piece_end)
        functions[owners[k].owner].lines.push_back(
            {piece_start, piece_end - piece_start, record.line, record.file});
      cursor = std::max(cursor, piece_end);
    }
    if (cursor < end)
      unclaimed.push_back({cursor, end - cursor, record.line, record.file});
  }
}

class Extractor {
public:
  Extractor(const ExtractOptions& options, std::vector<std::string>& warnings, UnitPins* pins)
      : options_(options), warnings_(warnings), namer_(options.supplementary, pins),
        breakpad_namer_(options.supplementary, options.forward_references) {}

  UnitSymbols run(DWARFContext& context, DWARFUnit& unit) {
    UnitSymbols out;
    DWARFDie unit_die = unit.getUnitDIE(true);
    if (!unit_die) {
      warn(unit, "has no unit DIE");
      return out;
    }
    const char* comp_dir = unit.getCompilationDir();
    DWARFUnit* body = &unit;
    if (auto dwo_name =
            dwarf::toString(unit_die.find({dwarf::DW_AT_dwo_name, dwarf::DW_AT_GNU_dwo_name}))) {
      // readDebugInfo has loaded the split unit already, if it could.
      DWARFDie full = unit.getNonSkeletonUnitDIE(false);
      if (full && full.getDwarfUnit() != &unit)
        body = full.getDwarfUnit();
      else
        warn(unit, "split DWARF file '" + std::string(*dwo_name) +
                       "' not found: its functions are named from the symbol table");
    }

    PathTable paths;
    UnitLineTable lines(context, unit, comp_dir ? comp_dir : "", paths, warnings_);
    lines_ = &lines;

    for (const DWARFDebugInfoEntry& entry : body->dies()) {
      DWARFDie die(body, &entry);
      if (die.getTag() != dwarf::DW_TAG_subprogram)
        continue;
      std::vector<AddressRange> ranges = codeRanges(die, warnings_);
      if (ranges.empty())
        continue;
      Function function;
      function.name = functionName(die, ranges);
      std::sort(ranges.begin(), ranges.end());
      function.ranges = std::move(ranges);
      if (options_.inlines)
        collectInlines(die, function);
      if (namer_.takeScopeLimitHit())
        warn(unit, "DIE at offset 0x" + utohexstr(die.getOffset()) + ": " +
                       limits::overLimit("the nesting of the scopes around it (or its inlined "
                                         "calls' origins)",
                                         limits::kMaxScopeDepth, "levels") +
                       ": named from the innermost ones");
      out.functions.push_back(std::move(function));
    }

    std::vector<OwnedRange> owners;
    for (size_t i = 0; i < out.functions.size(); ++i)
      for (const AddressRange& range : out.functions[i].ranges)
        owners.push_back({range, i});
    std::sort(owners.begin(), owners.end(), [](const OwnedRange& a, const OwnedRange& b) {
      return std::tie(a.range.start, a.owner) < std::tie(b.range.start, b.owner);
    });
    // A range nested in an earlier one (corrupt or ICF-folded DWARF) keeps
    // only its part past the earlier range.
    std::vector<OwnedRange> disjoint;
    for (OwnedRange owned : owners) {
      if (!disjoint.empty() && owned.range.start < disjoint.back().range.end)
        owned.range.start = disjoint.back().range.end;
      if (!owned.range.empty())
        disjoint.push_back(owned);
    }
    distributeLines(lines.records(), disjoint, out.functions, out.unclaimed_lines);

    out.files = paths.release();
    out.origins = std::move(origins_);
    releaseSpareCapacity(out);
    return out;
  }

private:
  // The vectors grew one push_back at a time, up to twice what they hold;
  // every unit's stay until the dump is written.
  static void releaseSpareCapacity(UnitSymbols& symbols) {
    for (Function& function : symbols.functions) {
      function.ranges.shrink_to_fit();
      function.lines.shrink_to_fit();
      function.inlines.shrink_to_fit();
      for (InlineCall& call : function.inlines)
        call.ranges.shrink_to_fit();
    }
    symbols.functions.shrink_to_fit();
    symbols.unclaimed_lines.shrink_to_fit();
  }

  void warn(DWARFUnit& unit, const std::string& message) {
    warnings_.push_back("unit at offset 0x" + utohexstr(unit.getOffset()) + ": " + message);
  }

  std::string functionName(DWARFDie die, const std::vector<AddressRange>& ranges) {
    if (options_.names == NameStyle::Breakpad)
      return breakpad_namer_.functionName(die);
    const FunctionNamer::Name& name = namer_.lookup(die);
    if (!name.complete && options_.symbols)
      if (const std::string* symbol = options_.symbols->nameAt(entryAddress(die, ranges)))
        return *symbol;
    return name.text;
  }

  std::string inlineOriginName(DWARFDie inlined_call) {
    return options_.names == NameStyle::Breakpad ? breakpad_namer_.inlineOriginName(inlined_call)
                                                 : namer_.inlineOriginName(inlined_call);
  }

  uint32_t origin(const std::string& name) {
    auto [it, inserted] = origin_ids_.try_emplace(name, origins_.size());
    if (inserted)
      origins_.push_back(name);
    return it->second;
  }

  // The inlined calls under `function_die`, depth first in DIE order.
  // Lexical blocks are transparent; an inlined call nests one level deeper.
  void collectInlines(DWARFDie function_die, Function& function) {
    struct Pending {
      DWARFDie die;
      uint32_t depth;
    };
    std::vector<Pending> stack;
    auto pushChildren = [&](DWARFDie parent, uint32_t depth) {
      size_t mark = stack.size();
      for (DWARFDie child = parent.getFirstChild(); child; child = child.getSibling())
        stack.push_back({child, depth});
      std::reverse(stack.begin() + mark, stack.end());
    };
    pushChildren(function_die, 0);
    bool too_deep = false;
    while (!stack.empty()) {
      Pending next = stack.back();
      stack.pop_back();
      switch (next.die.getTag()) {
      case dwarf::DW_TAG_lexical_block:
        pushChildren(next.die, next.depth);
        break;
      case dwarf::DW_TAG_inlined_subroutine: {
        if (next.depth >= limits::kMaxInlineDepth) {
          too_deep = true;
          break;
        }
        std::vector<AddressRange> ranges = codeRanges(next.die, warnings_);
        if (ranges.empty())
          break;
        std::sort(ranges.begin(), ranges.end());
        InlineCall call;
        call.depth = next.depth;
        call.call_line = dwarf::toUnsigned(next.die.find(dwarf::DW_AT_call_line), 0);
        if (auto file = dwarf::toUnsigned(next.die.find(dwarf::DW_AT_call_file)))
          call.call_file = lines_->file(*file);
        call.origin = origin(inlineOriginName(next.die));
        call.ranges = std::move(ranges);
        function.inlines.push_back(std::move(call));
        pushChildren(next.die, next.depth + 1);
        break;
      }
      default:
        break;
      }
    }
    if (too_deep)
      warn(*function_die.getDwarfUnit(), "DIE at offset 0x" + utohexstr(function_die.getOffset()) +
                                             ": " +
                                             limits::overLimit("the nesting of its inlined calls",
                                                               limits::kMaxInlineDepth, "levels") +
                                             ": the deeper ones are left out");
  }

  const ExtractOptions& options_;
  std::vector<std::string>& warnings_;
  FunctionNamer namer_;
  BreakpadNamer breakpad_namer_;
  UnitLineTable* lines_ = nullptr;
  std::vector<std::string> origins_;
  std::unordered_map<std::string, uint32_t> origin_ids_;
};

} // namespace

UnitSymbols extractUnit(DWARFContext& context, DWARFUnit& unit, const ExtractOptions& options,
                        std::vector<std::string>& warnings, UnitPins* pins) {
  return Extractor(options, warnings, pins).run(context, unit);
}

} // namespace dumpsyms
