// The in-memory model of one Breakpad symbol file.
//
// Readers fill a Module with plain values; ModuleBuilder (module_builder.h)
// merges, sorts and de-duplicates them; TextWriter (text_writer.h) prints the
// result. Addresses here are absolute (link-time) addresses: the writer makes
// them relative to the load address.
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// A half-open address range [start, end).
struct AddressRange {
  uint64_t start = 0;
  uint64_t end = 0;

  uint64_t size() const { return end - start; }
  bool empty() const { return end <= start; }
  bool contains(uint64_t address) const { return start <= address && address < end; }
  bool overlaps(const AddressRange& other) const { return start < other.end && other.start < end; }
  bool operator==(const AddressRange&) const = default;
  auto operator<=>(const AddressRange&) const = default;
};

// One line record: code in [address, address + size) comes from `line` of `file`.
// `file` indexes Module::files.
struct SourceLine {
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t line = 0;
  uint32_t file = 0;

  bool operator==(const SourceLine&) const = default;
};

// One inlined call inside a function (an INLINE record).
struct InlineCall {
  uint32_t depth = 0;                // 0: inlined straight into the FUNC
  uint32_t call_line = 0;            // line of the call in the caller
  std::optional<uint32_t> call_file; // index into Module::files; none = unknown
  uint32_t origin = 0;               // index into Module::inline_origins
  std::vector<AddressRange> ranges;  // ascending

  bool operator==(const InlineCall&) const = default;
};

// A function with code. A function split into several ranges (hot and cold
// parts) keeps them all; the writer gives each range its own FUNC record.
struct Function {
  std::string name;
  std::vector<AddressRange> ranges; // ascending, non-overlapping
  std::vector<SourceLine> lines;    // ascending, non-overlapping
  std::vector<InlineCall> inlines;  // depth-first pre-order
  bool multiple = false;            // the `m` flag: other symbols share this code
  // Bytes of arguments the callee pops (x86 __stdcall, __fastcall): the
  // processor unwinds frames without STACK WIN by it. 0 elsewhere.
  uint64_t parameter_size = 0;

  uint64_t address() const { return ranges.empty() ? 0 : ranges.front().start; }
};

// A symbol-table entry for code no Function covers.
struct PublicSymbol {
  uint64_t address = 0;
  std::string name;
  bool multiple = false;
  uint64_t parameter_size = 0; // as Function's
};

// One rule of a STACK CFI record: how to recover `name` (".cfa", ".ra" or a
// register) in the caller, as a postfix expression over the callee's registers.
struct CfiRule {
  std::string name;
  std::string expression;

  bool operator==(const CfiRule&) const = default;
};

// Rules that change at `address` (a STACK CFI delta record).
struct CfiChange {
  uint64_t address = 0;
  std::vector<CfiRule> rules;
};

// Unwind rules for one contiguous range (STACK CFI INIT and its deltas).
struct CfiFrame {
  AddressRange range;
  std::vector<CfiRule> initial;
  std::vector<CfiChange> changes; // ascending, each inside `range`
};

// A STACK WIN record (only the linux-gate templates use these on Linux).
struct StackWinRecord {
  uint32_t type = 4;
  uint64_t address = 0;
  uint64_t code_size = 0;
  uint64_t prologue_size = 0;
  uint64_t epilogue_size = 0;
  uint64_t parameter_size = 0;
  uint64_t saved_registers_size = 0;
  uint64_t locals_size = 0;
  uint64_t max_stack_size = 0;
  std::string program;                 // empty: no program string
  bool allocates_base_pointer = false; // used when `program` is empty
};

struct Module {
  std::string os = "Linux";
  std::string cpu;
  DebugId debug_id; // 33 upper-case hex digits for ELF
  CodeId code_id;   // empty = no INFO CODE_ID
  // The executable the code id names ("app.exe"): Windows modules write
  // `INFO CODE_ID <id> <file>`; empty for the Linux form.
  std::string code_file;
  // Further INFO records, "KEY value", written after CODE_ID in this order.
  // The processor skips INFO records it does not know.
  std::vector<std::string> extra_info;
  std::string name;
  uint64_t load_address = 0;

  std::vector<std::string> files;          // FILE records, id = index
  std::vector<std::string> inline_origins; // INLINE_ORIGIN records, id = index
  std::vector<Function> functions;
  std::vector<PublicSymbol> publics;
  std::vector<CfiFrame> cfi_frames;
  std::vector<StackWinRecord> stack_win;
};

} // namespace dumpsyms
