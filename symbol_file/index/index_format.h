// The binary index of one symbol file (docs/SYMBOL_INDEX.md): what a
// lookup needs from the .sym, in sorted tables that a reader maps and
// binary-searches without reading the rest. Every field is little-endian
// and unaligned (LLVM's ulittle types), so the file reads the same on any
// host and a record can be copied from any offset.
//
//   header (kHeaderSize bytes)        magic, version, the .sym's stamp,
//                                     where the directory and checksums are
//   sections                          each 8-byte aligned, listed in the
//                                     directory (kind, offset, size, count)
//   block checksums                   xxh3-64 of every kBlockSize bytes of
//                                     the file after the header, up to them
//
// The header carries the xxh3-64 of itself and of the checksum table; a
// block is checked the first time a lookup reads from it, so a lookup
// touches (and hashes) only the pages it reads.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <llvm/Support/Endian.h>

namespace dumpsyms::symbol_index {

using u32 = llvm::support::ulittle32_t;
using u64 = llvm::support::ulittle64_t;

constexpr char kMagic[8] = {'B', 'P', 'S', 'Y', 'M', 'I', 'D', 'X'};
// Bumped whenever a layout or a meaning changes: a reader refuses (and
// rebuilds) any other version.
constexpr uint32_t kVersion = 1;
constexpr uint64_t kHeaderSize = 128;
constexpr uint32_t kBlockShift = 16;
constexpr uint64_t kBlockSize = uint64_t(1) << kBlockShift;
// "No string" where a string id is optional (an INLINE's unknown call file).
constexpr uint32_t kNoString = 0xffffffffu;

enum HeaderFlag : uint32_t {
  // The .sym had lines Breakpad's parser would skip (INLINE records
  // aside): its processor calls such symbols corrupt, and so do we.
  kCorruptSymbols = 1,
};

struct Header {
  char magic[8];
  u32 version;
  u32 block_shift;
  u64 file_size;    // of the whole index
  u64 sym_size;     // of the .sym it was built from
  u64 sym_mtime_ns; // its modification time, ns since the epoch
  u64 sym_hash;     // contentHash() of its bytes
  u64 directory_offset;
  u32 section_count;
  u32 flags;            // HeaderFlag bits
  u64 checksums_offset; // one u64 per block of [kHeaderSize, checksums_offset)
  u64 checksums_hash;   // xxh3-64 of the checksum table
  char reserved[40];
  u64 header_hash; // xxh3-64 of the bytes before it
};
static_assert(sizeof(Header) == kHeaderSize);

enum class SectionKind : uint32_t {
  StringOffsets = 1,     // u64 per string and one past the last: string i is blob[o[i], o[i+1])
  StringBlob = 2,        // the strings' bytes
  ModuleInfo = 3,        // one ModuleInfoRecord, then extra_info_count u32 string ids
  Files = 4,             // u32 string id per FILE id (kNoString: no such FILE)
  InlineOrigins = 5,     // u32 string id per INLINE_ORIGIN id (kNoString: none)
  Functions = 6,         // FunctionRecord, in file order
  FunctionRanges = 7,    // RangeRecord whose `value` is a function; by start, stable
  Lines = 8,             // LineRecord, each function's together, in file order
  Inlines = 9,           // InlineRecord, each function's together, pre-order
  InlineRanges = 10,     // InlineRangeRecord, each inline's together, in inline order
  Publics = 11,          // PublicRecord by address, stable; address 0 left out
  CfiFrames = 12,        // CfiFrameRecord by start, stable
  CfiChanges = 13,       // CfiChangeRecord, each frame's together
  StackWin = 14,         // StackWinRecordOnDisk by address, stable; types 0-4, size > 0
  StackWinLongest = 15,  // u64 x 5: the longest record of each type
  Names = 16,            // NameRecord by (hash, order): function and PUBLIC names
  WideLines = 17,        // WideLineRecord: the lines of kWideFunction functions
  WideInlineRanges = 18, // WideRangeRecord: the inline ranges of kWideFunction functions
};
constexpr uint32_t kLastSectionKind = 18;

struct SectionEntry {
  u32 kind;
  u32 reserved;
  u64 offset;
  u64 size;  // bytes
  u64 count; // records
};

struct ModuleInfoRecord {
  u32 os, cpu, debug_id, name, code_id, code_file;
  u32 extra_info_count;
  u32 reserved;
  u64 load_address;
};

enum FunctionFlag : uint32_t {
  kMultipleFunction = 1, // the FUNC's `m`
  // Its lines and inline ranges do not all fit 32-bit offsets from `base`
  // (records outside their FUNC, in a damaged .sym): they are in WideLines
  // and WideInlineRanges, with whole addresses.
  kWideFunction = 2,
};

struct FunctionRecord {
  u32 name;
  u32 flags; // FunctionFlag bits
  u64 parameter_size;
  u64 base; // the FUNC's address: what Lines and InlineRanges offsets count from
  u64 first_line;
  u64 first_inline;
  u64 first_inline_range; // of its first inline; each inline's follow the one before's
  u32 line_count;
  u32 inline_count;
};

struct RangeRecord {
  u64 start, end, value;
};

struct LineRecord {
  u32 offset, size; // from the function's base
  u32 line, file;
};

struct WideLineRecord {
  u64 address, size;
  u32 line, file;
};

struct InlineRecord {
  u32 depth, call_line;
  u32 call_file; // kNoString: unknown
  u32 origin;
  u32 range_count;
};

struct InlineRangeRecord {
  u32 offset, size; // from the function's base
};

struct WideRangeRecord {
  u64 start, end;
};

struct PublicRecord {
  u64 address, parameter_size;
  u32 name, multiple;
};

struct CfiFrameRecord {
  u64 start, end;
  u64 first_change;
  u32 initial_rules; // string id of "name: expression ..." as the .sym writes them
  u32 change_count;
};

struct CfiChangeRecord {
  u64 address;
  u32 rules;
  u32 reserved;
};

struct StackWinRecordOnDisk {
  u32 type;
  u32 allocates_base_pointer;
  u64 address, code_size, prologue_size, epilogue_size, parameter_size, saved_registers_size,
      locals_size, max_stack_size;
  u32 program; // kNoString: no program string
  u32 reserved;
};

// The record's numbers, between the model and the index: the two sides of
// the one field list (the program string is the caller's: a string id on
// disk, text in the model).
inline StackWinRecordOnDisk stackWinOnDisk(const StackWinRecord& w, uint32_t program) {
  return {u32(w.type),           u32(w.allocates_base_pointer),
          u64(w.address),        u64(w.code_size),
          u64(w.prologue_size),  u64(w.epilogue_size),
          u64(w.parameter_size), u64(w.saved_registers_size),
          u64(w.locals_size),    u64(w.max_stack_size),
          u32(program),          u32(0)};
}
inline StackWinRecord stackWinFromDisk(const StackWinRecordOnDisk& r) {
  StackWinRecord w{r.type,
                   r.address,
                   r.code_size,
                   r.prologue_size,
                   r.epilogue_size,
                   r.parameter_size,
                   r.saved_registers_size,
                   r.locals_size,
                   r.max_stack_size,
                   "",
                   r.allocates_base_pointer != 0};
  return w;
}

struct NameRecord {
  u64 hash; // xxh3-64 of the name
  u64 address;
  u32 name;
  u32 order; // PUBLICs first, then FUNCs, in file order: the first wins
};

} // namespace dumpsyms::symbol_index
