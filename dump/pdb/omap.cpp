#include "dump/pdb/omap.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <fmt/format.h>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/Object/COFF.h>
#include <llvm/Support/BinaryStreamReader.h>

namespace dumpsyms {

using namespace llvm;

namespace {

// Sorted, with touching and overlapping pieces (blocks the rewriter kept in
// order) made one range.
std::vector<AddressRange> sortedAndMerged(std::vector<AddressRange> pieces) {
  std::sort(pieces.begin(), pieces.end());
  std::vector<AddressRange> merged;
  for (const AddressRange& range : pieces) {
    if (!merged.empty() && merged.back().end >= range.start)
      merged.back().end = std::max(merged.back().end, range.end);
    else
      merged.push_back(range);
  }
  return merged;
}

} // namespace

Omap::Omap(std::vector<OmapEntry> from_source, std::vector<OmapEntry> to_source)
    : from_source_(std::move(from_source)), to_source_(std::move(to_source)) {
  auto byRva = [](const OmapEntry& a, const OmapEntry& b) { return a.rva < b.rva; };
  std::stable_sort(from_source_.begin(), from_source_.end(), byRva);
  std::stable_sort(to_source_.begin(), to_source_.end(), byRva);
}

uint64_t Omap::shippedBlockEnd(uint64_t rva_to) const {
  auto next = std::upper_bound(to_source_.begin(), to_source_.end(), rva_to,
                               [](uint64_t rva, const OmapEntry& e) { return rva < e.rva; });
  return next == to_source_.end() ? UINT64_MAX : next->rva;
}

std::vector<AddressRange> Omap::mapRange(uint64_t start, uint64_t end) const {
  std::vector<AddressRange> out;
  auto block = std::upper_bound(from_source_.begin(), from_source_.end(), start,
                                [](uint64_t rva, const OmapEntry& e) { return rva < e.rva; });
  uint64_t cursor = start;
  while (cursor < end) {
    // [cursor, piece_end) lies in one original block (or before the first).
    uint64_t piece_end = block == from_source_.end() ? end : std::min<uint64_t>(end, block->rva);
    if (block != from_source_.begin()) {
      const OmapEntry& entry = *std::prev(block);
      if (entry.rva_to != 0) {
        uint64_t to = uint64_t(entry.rva_to) + (cursor - entry.rva);
        // (a shipped block may be shorter than the original one)
        uint64_t to_end = std::min(to + (piece_end - cursor), shippedBlockEnd(to));
        if (to_end > to) {
          if (!out.empty() && out.back().end == to)
            out.back().end = to_end;
          else
            out.push_back({to, to_end});
        }
      }
    }
    cursor = piece_end;
    if (block != from_source_.end())
      ++block;
  }
  return sortedAndMerged(std::move(out));
}

std::optional<uint64_t> Omap::mapAddress(uint64_t rva) const {
  std::vector<AddressRange> mapped = mapRange(rva, rva + 1);
  if (mapped.empty())
    return std::nullopt;
  return mapped.front().start;
}

namespace {

// One OMAP stream: 8-byte {rva, rvaTo} records.
std::optional<std::vector<OmapEntry>> readOmapStream(pdb::PDBFile& file, const pdb::DbiStream& dbi,
                                                     pdb::DbgHeaderType type,
                                                     std::vector<std::string>& problems,
                                                     const char* name) {
  uint32_t index = dbi.getDebugStreamIndex(type);
  if (index == pdb::kInvalidStreamIndex)
    return std::nullopt;
  auto stream = file.safelyCreateIndexedStream(index);
  if (!stream) {
    problems.push_back(fmt::format("the {} stream {} cannot be read: {}", name, index,
                                   toString(stream.takeError())));
    return std::nullopt;
  }
  uint64_t length = (*stream)->getLength();
  if (length % 8 != 0 || length / 8 > limits::kMaxOmapEntries) {
    problems.push_back(fmt::format("the {} stream holds {} bytes: not a table of at most {} "
                                   "8-byte entries; addresses are not mapped",
                                   name, length, limits::kMaxOmapEntries));
    return std::nullopt;
  }
  BinaryStreamReader reader(**stream);
  std::vector<OmapEntry> entries(length / 8);
  for (OmapEntry& entry : entries) {
    if (Error error = reader.readInteger(entry.rva)) {
      consumeError(std::move(error));
      return std::nullopt;
    }
    if (Error error = reader.readInteger(entry.rva_to)) {
      consumeError(std::move(error));
      return std::nullopt;
    }
  }
  return entries;
}

} // namespace

OmapStreams readOmapStreams(pdb::PDBFile& file) {
  OmapStreams result;
  auto dbi = file.getPDBDbiStream();
  if (!dbi) {
    consumeError(dbi.takeError());
    return result;
  }
  auto from =
      readOmapStream(file, *dbi, pdb::DbgHeaderType::OmapFromSrc, result.problems, "OMAP_FROM_SRC");
  auto to =
      readOmapStream(file, *dbi, pdb::DbgHeaderType::OmapToSrc, result.problems, "OMAP_TO_SRC");
  if (!from || from->empty())
    return result;
  // Real rewritten images' PDBs often have no SectionHdrOrig: Microsoft's
  // DIA then takes the section headers stream for the original image's.
  uint32_t original = dbi->getDebugStreamIndex(pdb::DbgHeaderType::SectionHdrOrig);
  if (original == pdb::kInvalidStreamIndex)
    original = dbi->getDebugStreamIndex(pdb::DbgHeaderType::SectionHdr);
  if (original == pdb::kInvalidStreamIndex) {
    result.problems.push_back("OMAP without section headers (SectionHdrOrig or SectionHdr): "
                              "addresses are not mapped");
    return result;
  }
  auto stream = file.safelyCreateIndexedStream(original);
  if (!stream) {
    result.problems.push_back("the original section headers cannot be read: " +
                              toString(stream.takeError()) + "; addresses are not mapped");
    return result;
  }
  uint64_t length = (*stream)->getLength();
  if (length % sizeof(object::coff_section) != 0 || length == 0) {
    result.problems.push_back(fmt::format("the original section headers stream holds {} bytes: "
                                          "not whole section headers; addresses are not mapped",
                                          length));
    return result;
  }
  BinaryStreamReader reader(**stream);
  FixedStreamArray<object::coff_section> headers;
  if (Error error = reader.readArray(headers, length / sizeof(object::coff_section))) {
    result.problems.push_back("the original section headers cannot be read: " +
                              toString(std::move(error)));
    return result;
  }
  for (const object::coff_section& section : headers) {
    result.original_section_rvas.push_back(section.VirtualAddress);
    result.original_code_sections.push_back(
        (section.Characteristics & (COFF::IMAGE_SCN_CNT_CODE | COFF::IMAGE_SCN_MEM_EXECUTE)) != 0);
  }
  result.omap.emplace(std::move(*from), to ? std::move(*to) : std::vector<OmapEntry>{});
  return result;
}

namespace {

std::vector<AddressRange> mapRanges(const Omap& omap, const std::vector<AddressRange>& ranges) {
  std::vector<AddressRange> out;
  for (const AddressRange& range : ranges)
    for (const AddressRange& piece : omap.mapRange(range.start, range.end))
      out.push_back(piece);
  return sortedAndMerged(std::move(out));
}

} // namespace

void applyOmap(Module& module, const Omap& omap) {
  std::vector<Function> functions;
  for (Function& function : module.functions) {
    function.ranges = mapRanges(omap, function.ranges);
    if (function.ranges.empty())
      continue; // all of it dropped
    std::vector<SourceLine> lines;
    for (const SourceLine& line : function.lines)
      for (const AddressRange& piece : omap.mapRange(line.address, line.address + line.size))
        lines.push_back({piece.start, piece.size(), line.line, line.file});
    std::sort(lines.begin(), lines.end(),
              [](const SourceLine& a, const SourceLine& b) { return a.address < b.address; });
    function.lines = std::move(lines);
    for (InlineCall& call : function.inlines)
      call.ranges = mapRanges(omap, call.ranges);
    std::erase_if(function.inlines, [](const InlineCall& call) { return call.ranges.empty(); });
    functions.push_back(std::move(function));
  }
  std::stable_sort(functions.begin(), functions.end(),
                   [](const Function& a, const Function& b) { return a.address() < b.address(); });
  module.functions = std::move(functions);

  std::vector<PublicSymbol> publics;
  for (PublicSymbol& symbol : module.publics)
    if (auto mapped = omap.mapAddress(symbol.address)) {
      symbol.address = *mapped;
      publics.push_back(std::move(symbol));
    }
  std::stable_sort(
      publics.begin(), publics.end(),
      [](const PublicSymbol& a, const PublicSymbol& b) { return a.address < b.address; });
  module.publics = std::move(publics);

  // A STACK WIN record for each piece of its range, in the PDB's order, as
  // Breakpad's dumper writes them.
  std::vector<StackWinRecord> stack_win;
  for (const StackWinRecord& record : module.stack_win)
    for (const AddressRange& piece :
         omap.mapRange(record.address, record.address + record.code_size)) {
      StackWinRecord mapped = record;
      mapped.address = piece.start;
      mapped.code_size = piece.size();
      stack_win.push_back(std::move(mapped));
    }
  module.stack_win = std::move(stack_win);
}

} // namespace dumpsyms
