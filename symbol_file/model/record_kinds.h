// The record kinds of a symbol file, named once: how many of each a file
// holds (what the writer counts, symtool stats and the module page print,
// a release's manifest keeps), and the names each place spells them with.
#pragma once

#include <cstdint>

namespace dumpsyms {

struct RecordCounts {
  uint64_t files = 0;          // FILE
  uint64_t inline_origins = 0; // INLINE_ORIGIN
  uint64_t functions = 0;      // FUNC
  uint64_t lines = 0;          // line records
  uint64_t inlines = 0;        // INLINE
  uint64_t publics = 0;        // PUBLIC
  uint64_t cfi_frames = 0;     // STACK CFI INIT
  uint64_t cfi_changes = 0;    // STACK CFI deltas
  uint64_t stack_win = 0;      // STACK WIN
};

struct RecordKind {
  const char* name; // as the format writes it, "STACK CFI INIT" (and "line")
  const char* key;  // as a manifest's JSON keys it, "STACK_CFI_INIT"
  uint64_t RecordCounts::*count;
};

// In the order a symbol file holds them.
inline constexpr RecordKind kRecordKinds[] = {
    {"FILE", "FILE", &RecordCounts::files},
    {"INLINE_ORIGIN", "INLINE_ORIGIN", &RecordCounts::inline_origins},
    {"FUNC", "FUNC", &RecordCounts::functions},
    {"line", "line", &RecordCounts::lines},
    {"INLINE", "INLINE", &RecordCounts::inlines},
    {"PUBLIC", "PUBLIC", &RecordCounts::publics},
    {"STACK CFI INIT", "STACK_CFI_INIT", &RecordCounts::cfi_frames},
    {"STACK CFI", "STACK_CFI", &RecordCounts::cfi_changes},
    {"STACK WIN", "STACK_WIN", &RecordCounts::stack_win},
};

} // namespace dumpsyms
