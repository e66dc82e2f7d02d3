#include "symbol_file/lookup/address_lookup.h"

#include "common/errors/file_error.h"
#include "symbol_file/index/index_sink.h"
#include "symbol_file/index/owned_buffer.h"
#include "symbol_file/text/text_reader.h"

#include <llvm/Support/xxhash.h>

namespace dumpsyms {

using namespace symbol_index;

namespace {

// The first of records [first, first + count) of `kind` whose key is above
// `key` (relative to `first`), as std::upper_bound; nullopt when the index
// fails a read.
template <class T, class KeyOf>
std::optional<uint64_t> upperBound(const IndexFile& index, SectionKind kind, uint64_t first,
                                   uint64_t count, uint64_t key, KeyOf keyOf) {
  uint64_t low = 0, high = count;
  while (low < high) {
    uint64_t middle = low + (high - low) / 2;
    T record{};
    if (!index.record(kind, first + middle, record))
      return std::nullopt;
    if (key < keyOf(record))
      high = middle;
    else
      low = middle + 1;
  }
  return low;
}

// A table of string ids (Files, InlineOrigins) at `id`; "" when none.
std::string tableString(const IndexFile& index, SectionKind kind, std::optional<uint32_t> id) {
  u32 string{};
  if (!id || *id >= index.section(kind).count || !index.record(kind, *id, string) ||
      string == kNoString)
    return std::string();
  return index.string(string).value_or("").str();
}

std::string stringOr(const IndexFile& index, uint32_t id) {
  return index.string(id).value_or("").str();
}

// Line `i` of `function` (counted from its first), with whole addresses.
std::optional<SourceLine> functionLine(const IndexFile& index, const FunctionRecord& function,
                                       uint64_t i) {
  if (function.flags & kWideFunction) {
    WideLineRecord wide{};
    if (!index.record(SectionKind::WideLines, function.first_line + i, wide))
      return std::nullopt;
    return SourceLine{wide.address, wide.size, wide.line, wide.file};
  }
  LineRecord line{};
  if (!index.record(SectionKind::Lines, function.first_line + i, line))
    return std::nullopt;
  return SourceLine{function.base + line.offset, line.size, line.line, line.file};
}

// Inline range `i` of `function` (counted from its first inline's first).
std::optional<AddressRange> inlineRange(const IndexFile& index, const FunctionRecord& function,
                                        uint64_t i) {
  if (function.flags & kWideFunction) {
    WideRangeRecord wide{};
    if (!index.record(SectionKind::WideInlineRanges, function.first_inline_range + i, wide))
      return std::nullopt;
    return AddressRange{wide.start, wide.end};
  }
  InlineRangeRecord range{};
  if (!index.record(SectionKind::InlineRanges, function.first_inline_range + i, range))
    return std::nullopt;
  uint64_t start = function.base + range.offset;
  return AddressRange{start, start + range.size};
}

AddressInfo lookupIn(const IndexFile& index, uint64_t address) {
  AddressInfo info;
  // The last FUNC range starting at or below the address.
  auto after = upperBound<RangeRecord>(index, SectionKind::FunctionRanges, 0,
                                       index.section(SectionKind::FunctionRanges).count, address,
                                       [](const RangeRecord& r) { return uint64_t(r.start); });
  if (!after)
    return info;
  RangeRecord range{};
  bool in_function = *after > 0 && index.record(SectionKind::FunctionRanges, *after - 1, range) &&
                     address < range.end;
  if (in_function) {
    FunctionRecord function{};
    if (!index.record(SectionKind::Functions, range.value, function))
      return info;
    info.function_start = range.start;
    // The line record at the address (the last starting at or below it,
    // if it reaches the address): where the innermost frame is.
    std::string file;
    uint32_t line = 0;
    uint64_t low = 0, high = function.line_count;
    while (low < high) {
      uint64_t middle = low + (high - low) / 2;
      auto row = functionLine(index, function, middle);
      if (!row)
        return info;
      if (address < row->address)
        high = middle;
      else
        low = middle + 1;
    }
    if (low > 0) {
      auto found = functionLine(index, function, low - 1);
      if (!found)
        return info;
      if (address < found->address + found->size) {
        file = tableString(index, SectionKind::Files, found->file);
        line = found->line;
        info.line_start = found->address;
      }
    }
    info.parameter_size = function.parameter_size;
    // The chain of inlined calls holding the address, each with the start
    // of its (last) range that holds it: records come in pre-order, so
    // each level's match follows its parent's.
    std::vector<std::pair<InlineRecord, uint64_t>> chain;
    uint64_t next_range = 0;
    for (uint64_t i = 0; i < function.inline_count; ++i) {
      InlineRecord call{};
      if (!index.record(SectionKind::Inlines, function.first_inline + i, call))
        return info;
      uint64_t first = next_range;
      next_range += call.range_count;
      if (call.depth != chain.size())
        continue;
      std::optional<uint64_t> start;
      for (uint64_t r = first; r < next_range; ++r) {
        auto held = inlineRange(index, function, r);
        if (!held)
          return info;
        if (held->contains(address))
          start = held->start;
      }
      if (start)
        chain.push_back({call, *start});
    }
    // Innermost first: each inlined function at the position inside it,
    // then its caller at the call site, out to the FUNC.
    for (size_t i = chain.size(); i-- > 0;) {
      const InlineRecord& call = chain[i].first;
      std::string name = tableString(index, SectionKind::InlineOrigins, uint32_t(call.origin));
      info.frames.push_back({name, file, line, true, chain[i].second});
      file = call.call_file == kNoString
                 ? std::string()
                 : tableString(index, SectionKind::Files, uint32_t(call.call_file));
      line = call.call_line;
    }
    info.frames.push_back({stringOr(index, function.name), file, line, false, range.start});
    return info;
  }
  // The nearest PUBLIC below, unless a FUNC starts between it and the
  // address (as the processor: the PUBLIC must lie above that FUNC's start).
  auto above = upperBound<PublicRecord>(index, SectionKind::Publics, 0,
                                        index.section(SectionKind::Publics).count, address,
                                        [](const PublicRecord& p) { return uint64_t(p.address); });
  PublicRecord symbol{};
  if (!above || *above == 0 || !index.record(SectionKind::Publics, *above - 1, symbol))
    return info;
  if (*after > 0 && range.start >= symbol.address)
    return info;
  info.public_name = stringOr(index, symbol.name);
  info.public_offset = address - symbol.address;
  info.parameter_size = symbol.parameter_size;
  return info;
}

std::optional<CfiFrame> cfiIn(const IndexFile& index, uint64_t address) {
  auto after = upperBound<CfiFrameRecord>(
      index, SectionKind::CfiFrames, 0, index.section(SectionKind::CfiFrames).count, address,
      [](const CfiFrameRecord& f) { return uint64_t(f.start); });
  CfiFrameRecord record{};
  if (!after || *after == 0 || !index.record(SectionKind::CfiFrames, *after - 1, record) ||
      !(record.start <= address && address < record.end))
    return std::nullopt;
  CfiFrame frame;
  frame.range = {record.start, record.end};
  auto rules = index.string(record.initial_rules);
  if (!rules)
    return std::nullopt;
  parseCfiRules(*rules, frame.initial);
  for (uint64_t c = 0; c < record.change_count; ++c) {
    CfiChangeRecord change{};
    if (!index.record(SectionKind::CfiChanges, record.first_change + c, change))
      return std::nullopt;
    auto text = index.string(change.rules);
    if (!text)
      return std::nullopt;
    CfiChange out;
    out.address = change.address;
    parseCfiRules(*text, out.rules);
    frame.changes.push_back(std::move(out));
  }
  return frame;
}

std::optional<StackWinRecord> stackWinIn(const IndexFile& index, uint64_t address, uint32_t type) {
  u64 longest(0);
  if (type >= 5 || !index.record(SectionKind::StackWinLongest, type, longest))
    return std::nullopt;
  auto after = upperBound<StackWinRecordOnDisk>(
      index, SectionKind::StackWin, 0, index.section(SectionKind::StackWin).count, address,
      [](const StackWinRecordOnDisk& r) { return uint64_t(r.address); });
  if (!after)
    return std::nullopt;
  // The innermost record of `type` holding the address: the last-starting
  // one that holds it (records nest: one a prologue step, each to the end
  // of the function). Further back than the longest record reaches, none
  // can.
  for (uint64_t i = *after; i-- > 0;) {
    StackWinRecordOnDisk r{};
    if (!index.record(SectionKind::StackWin, i, r))
      return std::nullopt;
    if (address - r.address >= longest)
      break;
    if (r.type != type || address - r.address >= r.code_size)
      continue;
    StackWinRecord out = stackWinFromDisk(r);
    if (r.program != kNoString) {
      auto program = index.string(r.program);
      if (!program)
        return std::nullopt;
      out.program = program->str();
    }
    return out;
  }
  return std::nullopt;
}

std::optional<uint64_t> addressIn(const IndexFile& index, llvm::StringRef name) {
  uint64_t hash = llvm::xxh3_64bits(name);
  uint64_t count = index.section(SectionKind::Names).count;
  // The first record of the hash (lower bound), then each of the hash in
  // order: the first with the name wins.
  uint64_t low = 0, high = count;
  while (low < high) {
    uint64_t middle = low + (high - low) / 2;
    NameRecord record{};
    if (!index.record(SectionKind::Names, middle, record))
      return std::nullopt;
    if (record.hash < hash)
      low = middle + 1;
    else
      high = middle;
  }
  for (uint64_t i = low; i < count; ++i) {
    NameRecord record{};
    if (!index.record(SectionKind::Names, i, record) || record.hash != hash)
      return std::nullopt;
    auto text = index.string(record.name);
    if (!text)
      return std::nullopt;
    if (*text == name)
      return uint64_t(record.address);
  }
  return std::nullopt;
}

} // namespace

template <class F> auto AddressLookup::answer(F f) const {
  auto result = f(*index_);
  if (index_->damaged() && rebuild_) {
    Rebuild rebuild = std::move(rebuild_);
    rebuild_ = nullptr;
    auto fresh = rebuild();
    if (fresh) {
      index_ = std::move(*fresh);
      result = f(*index_);
    } else {
      llvm::consumeError(fresh.takeError()); // the damaged index answers nothing
    }
  }
  return result;
}

bool AddressLookup::readHeading() {
  const IndexFile& index = *index_;
  const IndexFile::Section& section = index.section(SectionKind::ModuleInfo);
  ModuleInfoRecord info{};
  if (!index.record(SectionKind::ModuleInfo, 0, info)) // (the section's one record)
    return false;
  ModuleHeading heading;
  heading.os = stringOr(index, info.os);
  heading.cpu = stringOr(index, info.cpu);
  heading.debug_id = DebugId(stringOr(index, info.debug_id));
  heading.name = stringOr(index, info.name);
  heading.code_id = CodeId(stringOr(index, info.code_id));
  heading.code_file = stringOr(index, info.code_file);
  heading.load_address = info.load_address;
  heading.corrupt = (index.header().flags & kCorruptSymbols) != 0;
  uint64_t extra = info.extra_info_count;
  if (extra > (section.size - sizeof(ModuleInfoRecord)) / sizeof(u32))
    return index.fail("more INFO records than its table holds");
  for (uint64_t i = 0; i < extra; ++i) {
    u32 id{};
    if (!index.at(SectionKind::ModuleInfo, sizeof(ModuleInfoRecord) + i * sizeof(u32), id))
      return false;
    heading.extra_info.push_back(stringOr(index, id));
  }
  if (index.damaged())
    return false;
  heading_ = std::move(heading);
  return true;
}

llvm::Expected<AddressLookup> AddressLookup::open(std::unique_ptr<IndexFile> index,
                                                  Rebuild rebuild) {
  AddressLookup lookup(std::move(index), std::move(rebuild));
  if (!lookup.readHeading()) {
    if (!lookup.rebuild_)
      return fileError(lookup.index_->name(), "is not a usable index: " + lookup.index_->damage());
    auto fresh = lookup.rebuild_();
    lookup.rebuild_ = nullptr;
    if (!fresh)
      return fresh.takeError();
    lookup.index_ = std::move(*fresh);
    if (!lookup.readHeading())
      return fileError(lookup.index_->name(), "is not a usable index: " + lookup.index_->damage());
  }
  return lookup;
}

AddressLookup AddressLookup::fromText(llvm::StringRef text) {
  IndexSink sink;
  SymbolTextParser parser(sink, text.size());
  parser.lines(text);
  IndexOutput out;
  if (auto error = sink.finish(SymStamp{}, makesSymbolsCorrupt(parser.problems()), out))
    llvm::report_fatal_error(std::move(error)); // memory does not fail to be written
  auto index = IndexFile::open(ownedBuffer(out.take(), "index"), "<in memory>", /*trusted=*/true);
  if (!index)
    llvm::report_fatal_error(index.takeError()); // our own bytes: a bug, not an input
  auto lookup = open(std::move(*index));
  if (!lookup)
    llvm::report_fatal_error(lookup.takeError());
  return std::move(*lookup);
}

AddressInfo AddressLookup::lookup(uint64_t address) const {
  return answer([&](const IndexFile& index) { return lookupIn(index, address); });
}

std::optional<CfiFrame> AddressLookup::cfiAt(uint64_t address) const {
  return answer([&](const IndexFile& index) { return cfiIn(index, address); });
}

std::optional<StackWinRecord> AddressLookup::stackWinAt(uint64_t address, uint32_t type) const {
  return answer([&](const IndexFile& index) { return stackWinIn(index, address, type); });
}

std::optional<uint64_t> AddressLookup::addressOf(llvm::StringRef name) const {
  return answer([&](const IndexFile& index) { return addressIn(index, name); });
}

} // namespace dumpsyms
