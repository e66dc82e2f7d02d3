#include "symbol_file/index/index_sink.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <llvm/Support/xxhash.h>

namespace dumpsyms {

using namespace symbol_index;

uint32_t IndexStrings::id(llvm::StringRef text) {
  llvm::CachedHashStringRef key(text);
  auto found = ids_.find(key);
  if (found != ids_.end())
    return found->second;
  llvm::StringRef kept = saver_.save(text);
  uint32_t id = static_cast<uint32_t>(strings_.size());
  ids_.try_emplace(llvm::CachedHashStringRef(kept, key.hash()), id);
  strings_.push_back(kept);
  return id;
}

void IndexSink::moduleRecord(llvm::StringRef os, llvm::StringRef cpu, llvm::StringRef debug_id,
                             llvm::StringRef name) {
  os_ = os.str();
  cpu_ = cpu.str();
  debug_id_ = debug_id.str();
  module_name_ = name.str();
}

void IndexSink::codeId(llvm::StringRef code_id, llvm::StringRef code_file) {
  code_id_ = code_id.str();
  code_file_ = code_file.str();
}

void IndexSink::info(llvm::StringRef text) {
  extra_info_.push_back(text.str());
}

void IndexSink::file(uint32_t id, llvm::StringRef name) {
  if (files_.size() <= id)
    files_.resize(size_t(id) + 1, kNoString);
  files_[id] = strings_.id(name);
}

void IndexSink::inlineOrigin(uint32_t id, llvm::StringRef name) {
  if (origins_.size() <= id)
    origins_.resize(size_t(id) + 1, kNoString);
  origins_[id] = strings_.id(name);
}

void IndexSink::function(uint64_t address, uint64_t size, uint64_t parameter_size, bool multiple,
                         llvm::StringRef name) {
  endFunction();
  FunctionRecord record{};
  record.name = strings_.id(name);
  record.flags = multiple ? uint32_t(kMultipleFunction) : 0u;
  record.parameter_size = parameter_size;
  record.base = address;
  record.first_inline = inlines_.size();
  function_ranges_.push_back({u64(address), u64(address + size), u64(functions_.size())});
  functions_.push_back(record);
  in_function_ = true;
}

void IndexSink::checkCount(uint64_t count, const char* what) {
  if (count > limits::kMaxIndexTableEntries && too_large_.empty())
    too_large_ = limits::overLimit(what, limits::kMaxIndexTableEntries, "entries");
}

void IndexSink::line(const SourceLine& line) {
  pending_lines_.push_back(line);
  checkCount(pending_lines_.size(), "one FUNC's line records");
}

void IndexSink::inlineCall(uint32_t depth, uint32_t call_line, std::optional<uint32_t> call_file,
                           uint32_t origin, llvm::ArrayRef<AddressRange> ranges) {
  inlines_.push({u32(depth), u32(call_line), u32(call_file ? *call_file : kNoString), u32(origin),
                 u32(static_cast<uint32_t>(ranges.size()))});
  checkCount(uint64_t(functions_.back().inline_count) + 1, "one FUNC's INLINE records");
  functions_.back().inline_count = functions_.back().inline_count + 1;
  pending_ranges_.insert(pending_ranges_.end(), ranges.begin(), ranges.end());
}

// The open function's lines and ranges go to the compact tables when every
// one is a 32-bit offset and size from its base, else to the wide ones.
void IndexSink::endFunction() {
  if (!in_function_)
    return;
  in_function_ = false;
  FunctionRecord& function = functions_.back();
  uint64_t base = function.base;
  auto fits = [&](uint64_t address, uint64_t size) {
    return address >= base && address - base <= UINT32_MAX && size <= UINT32_MAX;
  };
  bool wide = !std::all_of(pending_lines_.begin(), pending_lines_.end(),
                           [&](const SourceLine& l) { return fits(l.address, l.size); }) ||
              !std::all_of(pending_ranges_.begin(), pending_ranges_.end(),
                           [&](const AddressRange& r) { return fits(r.start, r.size()); });
  function.line_count = static_cast<uint32_t>(pending_lines_.size());
  if (wide) {
    function.flags = function.flags | uint32_t(kWideFunction);
    function.first_line = wide_lines_.size();
    function.first_inline_range = wide_inline_ranges_.size();
    for (const SourceLine& l : pending_lines_)
      wide_lines_.push({u64(l.address), u64(l.size), u32(l.line), u32(l.file)});
    for (const AddressRange& r : pending_ranges_)
      wide_inline_ranges_.push({u64(r.start), u64(r.end)});
  } else {
    function.first_line = lines_.size();
    function.first_inline_range = inline_ranges_.size();
    for (const SourceLine& l : pending_lines_)
      lines_.push({u32(static_cast<uint32_t>(l.address - base)), u32(static_cast<uint32_t>(l.size)),
                   u32(l.line), u32(l.file)});
    for (const AddressRange& r : pending_ranges_)
      inline_ranges_.push(
          {u32(static_cast<uint32_t>(r.start - base)), u32(static_cast<uint32_t>(r.size()))});
  }
  pending_lines_.clear();
  pending_ranges_.clear();
}

void IndexSink::publicSymbol(uint64_t address, uint64_t parameter_size, bool multiple,
                             llvm::StringRef name) {
  endFunction();
  publics_.push_back({u64(address), u64(parameter_size), u32(strings_.id(name)), u32(multiple)});
}

void IndexSink::cfiInit(AddressRange range, llvm::StringRef rules) {
  endFunction();
  cfi_frames_.push_back({u64(range.start), u64(range.end), u64(cfi_changes_.size()),
                         u32(strings_.id(rules)), u32(0)});
}

void IndexSink::cfiChange(uint64_t address, llvm::StringRef rules) {
  cfi_changes_.push({u64(address), u32(strings_.id(rules)), u32(0)});
  cfi_frames_.back().change_count = cfi_frames_.back().change_count + 1;
}

void IndexSink::stackWin(const StackWinRecord& record, llvm::StringRef program) {
  endFunction();
  stack_win_.push_back({record, program.empty() ? kNoString : strings_.id(program)});
}

namespace {

// Writes sections one after another and lists them for the directory.
class Sections {
public:
  explicit Sections(IndexOutput& out) : out_(out) {}
  void begin(SectionKind kind) {
    end();
    out_.alignTo8();
    current_ = SectionEntry{};
    current_.kind = static_cast<uint32_t>(kind);
    current_.offset = out_.size();
    open_ = true;
  }
  template <class T> void records(const std::vector<T>& all) {
    out_.append(llvm::StringRef(reinterpret_cast<const char*>(all.data()), all.size() * sizeof(T)));
    current_.count = current_.count + all.size();
  }
  template <class T> void records(const ChunkedTable<T>& all) {
    all.writeTo(out_);
    current_.count = current_.count + all.size();
  }
  void bytes(llvm::StringRef text) {
    out_.append(text);
    current_.count = current_.count + text.size();
  }
  template <class T> void record(const T& one) {
    out_.appendRecord(one);
    current_.count = current_.count + 1;
  }
  // Directory entries after the sections; returns its offset.
  uint64_t directory() {
    end();
    out_.alignTo8();
    uint64_t at = out_.size();
    for (const SectionEntry& entry : entries_)
      out_.appendRecord(entry);
    return at;
  }
  size_t count() const { return entries_.size(); }

private:
  void end() {
    if (!open_)
      return;
    current_.size = out_.size() - current_.offset;
    entries_.push_back(current_);
    open_ = false;
  }
  IndexOutput& out_;
  std::vector<SectionEntry> entries_;
  SectionEntry current_{};
  bool open_ = false;
};

template <class T, class Key> void stableSortBy(std::vector<T>& all, Key key) {
  std::stable_sort(all.begin(), all.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
}

} // namespace

llvm::Error IndexSink::finish(const SymStamp& stamp, bool corrupt, IndexOutput& out) {
  endFunction();
  checkCount(strings_.size(), "the strings");
  if (!too_large_.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "too large to index: %s",
                                   too_large_.c_str());
  Sections sections(out);

  sections.begin(SectionKind::ModuleInfo);
  ModuleInfoRecord info{};
  info.os = strings_.id(os_);
  info.cpu = strings_.id(cpu_);
  info.debug_id = strings_.id(debug_id_);
  info.name = strings_.id(module_name_);
  info.code_id = strings_.id(code_id_);
  info.code_file = strings_.id(code_file_);
  info.extra_info_count = static_cast<uint32_t>(extra_info_.size());
  sections.record(info);
  for (const std::string& extra : extra_info_)
    out.appendRecord(u32(strings_.id(extra)));

  std::vector<u32> ids(files_.begin(), files_.end());
  sections.begin(SectionKind::Files);
  sections.records(ids);
  ids.assign(origins_.begin(), origins_.end());
  sections.begin(SectionKind::InlineOrigins);
  sections.records(ids);

  sections.begin(SectionKind::Functions);
  sections.records(functions_);
  // (sorted copies: finish() may run again, into another output)
  std::vector<RangeRecord> ranges = function_ranges_;
  stableSortBy(ranges, [](const RangeRecord& r) { return uint64_t(r.start); });
  sections.begin(SectionKind::FunctionRanges);
  sections.records(ranges);
  sections.begin(SectionKind::Lines);
  sections.records(lines_);
  sections.begin(SectionKind::WideLines);
  sections.records(wide_lines_);
  sections.begin(SectionKind::Inlines);
  sections.records(inlines_);
  sections.begin(SectionKind::InlineRanges);
  sections.records(inline_ranges_);
  sections.begin(SectionKind::WideInlineRanges);
  sections.records(wide_inline_ranges_);

  // Names to addresses, for crash text that gives symbol+offset: PUBLICs
  // first, then FUNCs, each in file order; the first of a name wins.
  std::vector<NameRecord> names;
  for (const PublicRecord& symbol : publics_)
    names.push_back({u64(llvm::xxh3_64bits(strings_.all()[symbol.name])), u64(symbol.address),
                     u32(symbol.name), u32(static_cast<uint32_t>(names.size()))});
  for (const FunctionRecord& function : functions_)
    names.push_back({u64(llvm::xxh3_64bits(strings_.all()[function.name])), u64(function.base),
                     u32(function.name), u32(static_cast<uint32_t>(names.size()))});
  stableSortBy(names, [](const NameRecord& n) { return uint64_t(n.hash); });

  // The processor discards PUBLIC 0.
  std::vector<PublicRecord> publics = publics_;
  std::erase_if(publics, [](const PublicRecord& p) { return p.address == 0; });
  stableSortBy(publics, [](const PublicRecord& p) { return uint64_t(p.address); });
  sections.begin(SectionKind::Publics);
  sections.records(publics);

  std::vector<CfiFrameRecord> frames = cfi_frames_;
  stableSortBy(frames, [](const CfiFrameRecord& f) { return uint64_t(f.start); });
  sections.begin(SectionKind::CfiFrames);
  sections.records(frames);
  sections.begin(SectionKind::CfiChanges);
  sections.records(cfi_changes_);

  std::array<uint64_t, 5> longest{};
  std::vector<StackWinRecordOnDisk> windows;
  std::vector<StackWinEntry> kept = stack_win_;
  std::erase_if(
      kept, [](const StackWinEntry& e) { return e.record.code_size == 0 || e.record.type >= 5; });
  std::stable_sort(kept.begin(), kept.end(), [](const StackWinEntry& a, const StackWinEntry& b) {
    return a.record.address < b.record.address;
  });
  for (const StackWinEntry& entry : kept) {
    const StackWinRecord& w = entry.record;
    longest[w.type] = std::max(longest[w.type], w.code_size);
    windows.push_back(stackWinOnDisk(w, entry.program));
  }
  sections.begin(SectionKind::StackWin);
  sections.records(windows);
  sections.begin(SectionKind::StackWinLongest);
  for (uint64_t size : longest)
    sections.record(u64(size));

  sections.begin(SectionKind::Names);
  sections.records(names);

  // The strings last: every table above has named the ones it needs.
  sections.begin(SectionKind::StringOffsets);
  uint64_t offset = 0;
  for (llvm::StringRef text : strings_.all()) {
    sections.record(u64(offset));
    offset += text.size();
  }
  sections.record(u64(offset));
  sections.begin(SectionKind::StringBlob);
  for (llvm::StringRef text : strings_.all())
    sections.bytes(text);

  Header header{};
  std::memcpy(header.magic, kMagic, sizeof kMagic);
  header.version = kVersion;
  header.block_shift = kBlockShift;
  header.sym_size = stamp.size;
  header.sym_mtime_ns = stamp.mtime_ns;
  header.sym_hash = stamp.hash;
  header.flags = corrupt ? uint32_t(kCorruptSymbols) : 0u;
  header.directory_offset = sections.directory();
  header.section_count = static_cast<uint32_t>(sections.count());
  return out.finish(header);
}

} // namespace dumpsyms
