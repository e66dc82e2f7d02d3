#include "symbol_file/text/text_writer.h"

#include <algorithm>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <iterator>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <string_view>
#include <tuple>

namespace dumpsyms {

namespace {

// The processor cannot read names that are empty or that hold a line break
// or NUL; such names are written in a form it can.
class Output {
public:
  Output(std::ostream& out, uint64_t base) : out_(&out), base_(base) {}
  // Into memory, for take().
  explicit Output(uint64_t base) : out_(nullptr), base_(base) {}
  ~Output() { flush(); }

  fmt::memory_buffer take() { return std::move(buffer_); }
  void write(const fmt::memory_buffer& text) {
    flush();
    out_->write(text.data(), static_cast<std::streamsize>(text.size()));
  }

  template <typename... Args> void line(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(fmt::appender(buffer_), format, std::forward<Args>(args)...);
    buffer_.push_back('\n');
    if (buffer_.size() > (1 << 16))
      flush();
  }

  uint64_t rva(uint64_t address) const { return address - base_; }

  // The most numerous records, formatted with compiled format strings.
  void sourceLine(const SourceLine& line) {
    fmt::format_to(fmt::appender(buffer_), FMT_COMPILE("{:x} {:x} {} {}\n"), rva(line.address),
                   line.size, line.line, line.file);
    if (buffer_.size() > (1 << 16))
      flush();
  }
  void cfiChange(uint64_t address, const std::string& rules) {
    fmt::format_to(fmt::appender(buffer_), FMT_COMPILE("STACK CFI {:x} {}\n"), rva(address), rules);
    if (buffer_.size() > (1 << 16))
      flush();
  }

  static std::string safeName(std::string_view name) {
    if (name.empty())
      return "<name omitted>";
    std::string out(name);
    for (char& c : out)
      if (c == '\n' || c == '\r' || c == '\0')
        c = ' ';
    return out;
  }

private:
  void flush() {
    if (!out_)
      return;
    out_->write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  std::ostream* out_;
  uint64_t base_;
  fmt::memory_buffer buffer_;
};

std::string joinRules(const std::vector<CfiRule>& rules) {
  // Rules are listed in byte-wise order of their names.
  std::vector<const CfiRule*> sorted;
  for (const CfiRule& rule : rules)
    sorted.push_back(&rule);
  std::sort(sorted.begin(), sorted.end(),
            [](const CfiRule* a, const CfiRule* b) { return a->name < b->name; });
  std::string text;
  for (const CfiRule* rule : sorted) {
    if (!text.empty())
      text += ' ';
    text += rule->name;
    text += ": ";
    text += rule->expression;
  }
  return text;
}

// INLINE records of `function` restricted to `range`: a record whose ranges
// miss it is left out together with its descendants, and its ranges are
// clipped to it. The processor reads at most 254 address/size pairs.
size_t writeInlines(Output& out, const Function& function, const AddressRange& range) {
  size_t written = 0;
  constexpr size_t kMaxRangesPerRecord = 254;
  std::vector<bool> written_at_depth;
  for (const InlineCall& call : function.inlines) {
    if (written_at_depth.size() <= call.depth)
      written_at_depth.resize(call.depth + 1, false);
    written_at_depth[call.depth] = false;
    if (call.depth > 0 && !written_at_depth[call.depth - 1])
      continue;
    std::string ranges;
    size_t count = 0;
    for (const AddressRange& r : call.ranges) {
      uint64_t start = std::max(r.start, range.start);
      uint64_t end = std::min(r.end, range.end);
      if (start >= end || count == kMaxRangesPerRecord)
        continue;
      fmt::format_to(std::back_inserter(ranges), " {:x} {:x}", out.rva(start), end - start);
      ++count;
    }
    if (count == 0)
      continue;
    written_at_depth[call.depth] = true;
    long long file = call.call_file ? static_cast<long long>(*call.call_file) : -1;
    out.line("INLINE {} {} {} {}{}", call.depth, call.call_line, file, call.origin, ranges);
    ++written;
  }
  return written;
}

} // namespace

RecordCounts writeSymbolFile(const Module& module, const WriteOptions& options,
                             std::ostream& stream) {
  RecordCounts counts;
  Output out(stream, options.absolute_addresses ? 0 : module.load_address);
  out.line("MODULE {} {} {} {}", module.os, module.cpu, module.debug_id,
           Output::safeName(module.name));
  if (!module.code_id.empty() && !module.code_file.empty())
    out.line("INFO CODE_ID {} {}", module.code_id, Output::safeName(module.code_file));
  else if (!module.code_id.empty())
    out.line("INFO CODE_ID {}", module.code_id);
  if (options.header_only)
    return counts;
  for (const std::string& info : module.extra_info)
    out.line("INFO {}", info);
  counts.files = module.files.size();
  counts.inline_origins = module.inline_origins.size();

  for (size_t i = 0; i < module.files.size(); ++i)
    out.line("FILE {} {}", i, Output::safeName(module.files[i]));
  for (size_t i = 0; i < module.inline_origins.size(); ++i)
    out.line("INLINE_ORIGIN {} {}", i, Output::safeName(module.inline_origins[i]));

  // Each range of a function is its own FUNC record, in address order.
  struct Entry {
    uint64_t start;
    size_t function;
    size_t range;
  };
  std::vector<Entry> entries;
  for (size_t f = 0; f < module.functions.size(); ++f)
    for (size_t r = 0; r < module.functions[f].ranges.size(); ++r)
      entries.push_back({module.functions[f].ranges[r].start, f, r});
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.start, a.function) < std::tie(b.start, b.function);
  });
  // The bulk of a file: formatted in batches, a slice of each by every
  // thread, and written in order.
  auto writeFunctions = [&](Output& text, size_t from, size_t to, RecordCounts& batch) {
    for (size_t e = from; e < to; ++e) {
      const Function& function = module.functions[entries[e].function];
      const AddressRange& range = function.ranges[entries[e].range];
      text.line("FUNC {}{:x} {:x} {:x} {}", function.multiple ? "m " : "", text.rva(range.start),
                range.size(), function.parameter_size, Output::safeName(function.name));
      ++batch.functions;
      batch.inlines += writeInlines(text, function, range);
      auto first = std::lower_bound(
          function.lines.begin(), function.lines.end(), range.start,
          [](const SourceLine& line, uint64_t address) { return line.address < address; });
      for (auto line = first; line != function.lines.end() && line->address < range.end; ++line) {
        text.sourceLine(*line);
        ++batch.lines;
      }
    }
  };
  unsigned threads =
      options.threads ? options.threads : llvm::hardware_concurrency().compute_thread_count();
  constexpr size_t kSlice = 2048; // functions a thread formats at a time
  if (threads <= 1 || entries.size() <= kSlice) {
    writeFunctions(out, 0, entries.size(), counts);
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    std::vector<RecordCounts> slice_counts(threads);
    std::vector<fmt::memory_buffer> texts(threads);
    for (size_t batch = 0; batch < entries.size(); batch += kSlice * threads) {
      for (unsigned t = 0; t < threads; ++t)
        pool.async([&, batch, t] {
          size_t from = std::min(entries.size(), batch + t * kSlice);
          Output text(options.absolute_addresses ? 0 : module.load_address);
          writeFunctions(text, from, std::min(entries.size(), from + kSlice), slice_counts[t]);
          texts[t] = text.take();
        });
      pool.wait();
      for (const fmt::memory_buffer& text : texts)
        out.write(text);
    }
    for (const RecordCounts& slice : slice_counts) {
      counts.functions += slice.functions;
      counts.inlines += slice.inlines;
      counts.lines += slice.lines;
    }
  }

  counts.publics = module.publics.size();
  for (const PublicSymbol& symbol : module.publics)
    out.line("PUBLIC {}{:x} {:x} {}", symbol.multiple ? "m " : "", out.rva(symbol.address),
             symbol.parameter_size, Output::safeName(symbol.name));

  if (options.include_cfi) {
    for (const CfiFrame& frame : module.cfi_frames) {
      out.line("STACK CFI INIT {:x} {:x} {}", out.rva(frame.range.start), frame.range.size(),
               joinRules(frame.initial));
      ++counts.cfi_frames;
      counts.cfi_changes += frame.changes.size();
      for (const CfiChange& change : frame.changes)
        out.cfiChange(change.address, joinRules(change.rules));
    }
  }

  for (const StackWinRecord& record : module.stack_win) {
    std::string last = record.program.empty()
                           ? fmt::format("0 {:x}", record.allocates_base_pointer ? 1 : 0)
                           : "1 " + record.program;
    out.line("STACK WIN {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {:x} {}", record.type,
             out.rva(record.address), record.code_size, record.prologue_size, record.epilogue_size,
             record.parameter_size, record.saved_registers_size, record.locals_size,
             record.max_stack_size, last);
  }
  counts.stack_win = module.stack_win.size();
  return counts;
}

} // namespace dumpsyms
