#include "dump/pdb/module_symbols.h"

#include "common/limits/input_limits.h"
#include "dump/pdb/inline_annotations.h"

#include <algorithm>
#include <fmt/format.h>
#include <llvm/DebugInfo/CodeView/DebugChecksumsSubsection.h>
#include <llvm/DebugInfo/CodeView/DebugInlineeLinesSubsection.h>
#include <llvm/DebugInfo/CodeView/DebugLinesSubsection.h>
#include <llvm/DebugInfo/CodeView/SymbolDeserializer.h>
#include <llvm/DebugInfo/CodeView/SymbolRecord.h>
#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleDescriptor.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/ModuleDebugStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBStringTable.h>
#include <map>
#include <unordered_map>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::codeview;

namespace {

// CodeView marks compiler-generated code with these line numbers.
bool isHiddenLine(uint32_t line) {
  return line == 0 || line == 0xfeefee || line == 0xf00f00;
}

// File names of one module: checksum entry offset -> index into unit.files.
class ModuleFiles {
public:
  ModuleFiles(PdbFile& pdb, const pdb::ModuleDebugStreamRef& stream, UnitSymbols& unit,
              std::vector<std::string>& warnings)
      : unit_(unit) {
    auto checksums = stream.findChecksumsSubsection();
    if (!checksums) {
      consumeError(checksums.takeError());
      return;
    }
    auto strings = pdb.raw().getStringTable();
    if (!strings) {
      warnings.push_back("no /names string table: " + toString(strings.takeError()));
      return;
    }
    // The checksums subsection is a list of variable-size entries; line
    // blocks name a file by the offset of its entry.
    uint32_t offset = 0;
    for (const FileChecksumEntry& entry : *checksums) {
      auto name = strings->getStringForID(entry.FileNameOffset);
      if (name) {
        by_offset_[offset] = uint32_t(unit_.files.size());
        unit_.files.push_back(name->str());
      } else {
        consumeError(name.takeError());
      }
      // Entry: name offset (4), checksum size (1), kind (1), bytes, 4-aligned.
      offset += alignTo(6 + entry.Checksum.size(), 4);
    }
  }

  std::optional<uint32_t> file(uint32_t checksum_offset) const {
    auto found = by_offset_.find(checksum_offset);
    if (found == by_offset_.end())
      return std::nullopt;
    return found->second;
  }

private:
  UnitSymbols& unit_;
  std::unordered_map<uint32_t, uint32_t> by_offset_;
};

// The rows of a set of line records, as a map from start address to
// (end, line, file) that later pieces (inlined code) can overwrite.
class LineMap {
public:
  void paint(uint64_t start, uint64_t end, uint32_t line, uint32_t file) {
    if (end <= start)
      return;
    // Cut the rows that straddle `start` and `end`, then drop what is inside.
    split(start);
    split(end);
    rows_.erase(rows_.lower_bound(start), rows_.lower_bound(end));
    rows_[start] = {end, line, file};
  }
  // The row covering `address`, if any.
  const std::pair<const uint64_t, std::tuple<uint64_t, uint32_t, uint32_t>>*
  at(uint64_t address) const {
    auto it = rows_.upper_bound(address);
    if (it == rows_.begin())
      return nullptr;
    --it;
    return std::get<0>(it->second) > address ? &*it : nullptr;
  }
  // Calls `fn(start, end, line, file)` for every row overlapping [from, to),
  // clipped to it.
  template <typename Fn> void forEachIn(uint64_t from, uint64_t to, Fn fn) const {
    auto it = rows_.upper_bound(from);
    if (it != rows_.begin())
      --it;
    for (; it != rows_.end() && it->first < to; ++it) {
      const auto& [end, line, file] = it->second;
      if (end > from)
        fn(std::max(it->first, from), std::min(end, to), line, file);
    }
  }
  std::vector<SourceLine> lines() const {
    std::vector<SourceLine> out;
    for (const auto& [start, row] : rows_) {
      const auto& [end, line, file] = row;
      if (!isHiddenLine(line))
        out.push_back({start, end - start, line, file});
    }
    return out;
  }

private:
  void split(uint64_t address) {
    auto it = rows_.upper_bound(address);
    if (it == rows_.begin())
      return;
    --it;
    auto& [end, line, file] = it->second;
    if (it->first < address && address < end) {
      rows_[address] = {end, line, file};
      end = address;
    }
  }
  std::map<uint64_t, std::tuple<uint64_t, uint32_t, uint32_t>> rows_;
};

struct PendingSite {
  uint32_t depth = 0;
  TypeIndex inlinee;
  std::vector<InlinePiece> pieces;
};

struct PendingFunction {
  Function function;
  uint32_t code_size = 0;
  std::vector<PendingSite> sites; // pre-order
};

bool opensScope(SymbolKind kind) {
  switch (kind) {
  case S_GPROC32:
  case S_LPROC32:
  case S_GPROC32_ID:
  case S_LPROC32_ID:
  case S_LPROC32_DPC:
  case S_LPROC32_DPC_ID:
  case S_BLOCK32:
  case S_THUNK32:
  case S_WITH32:
  case S_SEPCODE:
  case S_INLINESITE:
  case S_INLINESITE2:
    return true;
  default:
    return false;
  }
}

bool closesScope(SymbolKind kind) {
  return kind == S_END || kind == S_PROC_ID_END || kind == S_INLINESITE_END;
}

bool isProcedure(SymbolKind kind) {
  return kind == S_GPROC32 || kind == S_LPROC32 || kind == S_GPROC32_ID || kind == S_LPROC32_ID ||
         kind == S_LPROC32_DPC || kind == S_LPROC32_DPC_ID;
}

} // namespace

ModuleSymbolsResult readModuleSymbols(PdbFile& pdb, uint32_t module_index, InlineeNames& inlinees,
                                      const ProcedureNamer& namer, bool inlined_code_lines) {
  ModuleSymbolsResult result;
  auto dbi = pdb.raw().getPDBDbiStream();
  if (!dbi) {
    consumeError(dbi.takeError());
    return result;
  }
  if (module_index >= pdb.moduleCount())
    return result;
  pdb::DbiModuleDescriptor descriptor = dbi->modules().getModuleDescriptor(module_index);
  uint16_t stream_index = descriptor.getModuleStreamIndex();
  if (stream_index == 0xffff) // kInvalidStreamIndex: a module without symbols
    return result;
  std::string module_name = descriptor.getModuleName().str();
  auto warn = [&](const std::string& what) {
    result.warnings.push_back(fmt::format("module {} ({}): {}", module_index, module_name, what));
  };
  auto raw_stream = pdb.raw().safelyCreateIndexedStream(stream_index);
  if (!raw_stream) {
    warn("cannot open its stream: " + toString(raw_stream.takeError()));
    return result;
  }
  pdb::ModuleDebugStreamRef stream(descriptor, std::move(*raw_stream));
  if (Error error = stream.reload()) {
    warn("corrupt symbol stream: " + toString(std::move(error)));
    return result;
  }
  UnitSymbols& unit = result.unit;
  ModuleFiles files(pdb, stream, unit, result.warnings);

  // The ids this module's inline sites may name in other modules.
  CrossModuleImports imports;
  // Where each inlinee starts: S_INLINEELINES entries, by inlinee id.
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> inlinee_starts; // -> file, line
  // C13 line rows, all procedures of the module together.
  LineMap module_lines;
  for (const DebugSubsectionRecord& subsection : stream.subsections()) {
    if (subsection.kind() == DebugSubsectionKind::Lines) {
      DebugLinesSubsectionRef lines;
      if (Error error = lines.initialize(BinaryStreamReader(subsection.getRecordData()))) {
        warn("corrupt lines subsection: " + toString(std::move(error)));
        continue;
      }
      const LineFragmentHeader* header = lines.header();
      std::optional<uint32_t> base = pdb.rva(header->RelocSegment, header->RelocOffset);
      if (!base)
        continue;
      // Each row runs to the next row of the fragment (in any file block),
      // the last one to the end of the fragment's code.
      std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> rows; // offset, line, file
      for (const LineColumnEntry& block : lines) {
        std::optional<uint32_t> file = files.file(block.NameIndex);
        for (const LineNumberEntry& entry : block.LineNumbers) {
          LineInfo info(entry.Flags);
          rows.emplace_back(entry.Offset, info.getStartLine(), file.value_or(UINT32_MAX));
        }
      }
      std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) < std::get<0>(b);
      });
      // Several rows at one offset: all but the last are empty, as in a
      // DWARF line table (llvm-symbolizer answers the first one's line for
      // that exact address only).
      for (size_t i = 0; i < rows.size(); ++i) {
        uint32_t start = std::get<0>(rows[i]);
        uint32_t end = i + 1 < rows.size() ? std::get<0>(rows[i + 1]) : header->CodeSize;
        if (std::get<2>(rows[i]) != UINT32_MAX && start < end)
          module_lines.paint(uint64_t(*base) + start, uint64_t(*base) + end, std::get<1>(rows[i]),
                             std::get<2>(rows[i]));
      }
    } else if (subsection.kind() == DebugSubsectionKind::InlineeLines) {
      DebugInlineeLinesSubsectionRef inlinee_lines;
      if (Error error = inlinee_lines.initialize(subsection.getRecordData())) {
        warn("corrupt inlinee lines subsection: " + toString(std::move(error)));
        continue;
      }
      for (const InlineeSourceLine& line : inlinee_lines)
        inlinee_starts[line.Header->Inlinee.getIndex()] = {line.Header->FileID,
                                                           line.Header->SourceLineNum};
    } else if (subsection.kind() == DebugSubsectionKind::CrossScopeImports) {
      std::string problem;
      if (auto read = readCrossModuleImports(pdb, subsection.getRecordData(), problem))
        imports = std::move(*read);
      if (!problem.empty())
        warn(problem);
    }
  }

  // Procedures and the inlined calls inside them.
  std::vector<PendingFunction> functions;
  std::vector<SymbolKind> scopes; // open scopes, innermost last
  constexpr size_t kNone = SIZE_MAX;
  size_t current = kNone; // index into functions of the open procedure
  uint32_t inline_depth = 0;
  bool had_error = false, too_deep = false;
  for (const CVSymbol& symbol : stream.symbols(&had_error)) {
    SymbolKind kind = symbol.kind();
    if (closesScope(kind)) {
      if (scopes.empty())
        continue;
      SymbolKind closed = scopes.back();
      scopes.pop_back();
      if (closed == S_INLINESITE || closed == S_INLINESITE2)
        --inline_depth;
      if (isProcedure(closed)) {
        current = kNone;
        inline_depth = 0;
      }
      continue;
    }
    if (isProcedure(kind) && scopes.empty()) {
      ProcSym proc(static_cast<SymbolRecordKind>(kind));
      if (Error error = SymbolDeserializer::deserializeAs<ProcSym>(symbol, proc)) {
        consumeError(std::move(error));
        warn("unreadable procedure record");
      } else if (auto rva = pdb.rva(proc.Segment, proc.CodeOffset); rva && proc.CodeSize) {
        PendingFunction pending;
        ProcedureName named = namer({*rva, proc.Name,
                                     kind == S_LPROC32 || kind == S_LPROC32_ID ||
                                         kind == S_LPROC32_DPC || kind == S_LPROC32_DPC_ID,
                                     proc.FunctionType});
        pending.function.name = std::move(named.name);
        pending.function.parameter_size = named.parameter_size;
        pending.function.ranges = {{*rva, uint64_t(*rva) + proc.CodeSize}};
        pending.code_size = proc.CodeSize;
        functions.push_back(std::move(pending));
        current = functions.size() - 1;
      }
    } else if ((kind == S_INLINESITE || kind == S_INLINESITE2) && current != kNone &&
               inline_depth >= limits::kMaxInlineDepth) {
      too_deep = true;
    } else if ((kind == S_INLINESITE || kind == S_INLINESITE2) && current != kNone) {
      InlineSiteSym site(static_cast<SymbolRecordKind>(kind));
      if (Error error = SymbolDeserializer::deserializeAs<InlineSiteSym>(symbol, site)) {
        consumeError(std::move(error));
        warn("unreadable inline site record");
      } else {
        auto start = inlinee_starts.find(site.Inlinee.getIndex());
        uint32_t file = start != inlinee_starts.end() ? start->second.first : UINT32_MAX;
        uint32_t line = start != inlinee_starts.end() ? start->second.second : 0;
        PendingFunction& function = functions[current];
        function.sites.push_back(
            {inline_depth, site.Inlinee,
             decodeInlineAnnotations(site.AnnotationData, line, file, function.code_size)});
      }
    }
    if (opensScope(kind)) {
      scopes.push_back(kind);
      if (kind == S_INLINESITE || kind == S_INLINESITE2)
        ++inline_depth;
    }
  }
  if (had_error)
    warn("the symbol stream ends in a corrupt record");
  if (too_deep)
    warn(limits::overLimit("the nesting of inline sites", limits::kMaxInlineDepth, "levels") +
         ": the deeper ones are left out");

  // Lines per function, with inlined code's lines painted over the call
  // site's; the INLINE records' call lines are what lay under them.
  std::unordered_map<std::string, uint32_t> origin_ids;
  for (PendingFunction& pending : functions) {
    Function& function = pending.function;
    AddressRange range = function.ranges.front();
    LineMap lines;
    module_lines.forEachIn(range.start, range.end,
                           [&](uint64_t start, uint64_t end, uint32_t line, uint32_t file) {
                             lines.paint(start, end, line, file);
                           });
    // (nested calls' call lines need the inlined code's lines painted even
    // when the function keeps its own)
    std::optional<LineMap> own_lines;
    if (!inlined_code_lines)
      own_lines = lines;
    for (const PendingSite& site : pending.sites) {
      InlineCall call;
      call.depth = site.depth;
      std::string name = inlinees.name(site.inlinee, imports);
      if (name.empty())
        name = isCrossModuleId(site.inlinee.getIndex())
                   ? std::string("<inlinee of another module>") // (why: a warning)
                   : fmt::format("<inlinee {:#x}>", site.inlinee.getIndex());
      auto [origin, added] = origin_ids.emplace(name, uint32_t(unit.origins.size()));
      if (added)
        unit.origins.push_back(name);
      call.origin = origin->second;
      for (const InlinePiece& piece : site.pieces) {
        uint64_t start = range.start + piece.start,
                 end = std::min(range.end, range.start + piece.end);
        if (start < end)
          call.ranges.push_back({start, end});
      }
      if (call.ranges.empty())
        continue;
      std::sort(call.ranges.begin(), call.ranges.end());
      if (const auto* caller = lines.at(call.ranges.front().start)) {
        call.call_line = std::get<1>(caller->second);
        call.call_file = std::get<2>(caller->second);
      }
      for (const InlinePiece& piece : site.pieces)
        if (std::optional<uint32_t> file = files.file(piece.file))
          lines.paint(range.start + piece.start, std::min(range.end, range.start + piece.end),
                      piece.line, *file);
      function.inlines.push_back(std::move(call));
    }
    function.lines = own_lines ? own_lines->lines() : lines.lines();
    unit.functions.push_back(std::move(function));
  }
  return result;
}

} // namespace dumpsyms
