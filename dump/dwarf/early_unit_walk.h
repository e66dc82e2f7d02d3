// Reads compile units while .debug_info is still inflating.
//
// On a big compressed debug file, inflating .debug_info (one zlib stream,
// so one thread) takes as long as reading every unit on two: done one after
// the other, a dump takes about three times as long as the inflation alone.
// The units whose bytes are final need not wait: here they are read while
// the stream goes on, in stages, each over a context that sees .debug_info
// only as far as it has inflated, by as many threads as the dump has (the
// inflating one shares the cores with them). The units after the last stage
// are read the ordinary way, by all threads, once it is whole.
//
// ISA-L inflates faster than units are read: left alone, the stream would
// run far ahead, and the inflated bytes not yet read are most of a dump's
// peak memory. So while units are read here, the stream waits whenever it
// is more than a window ahead of them (DwarfInflation's pacing).
//
// Only files where each unit stands alone qualify: a DIE that refers into
// another unit could point past the inflated bytes, or back into bytes
// already given back. The results wait here until the stream is known to be
// whole: should it fail, they are dropped and every unit is read again, so
// the output never depends on the timing.
#pragma once

#include "dump/dwarf/die_overrun_guard.h"
#include "dump/dwarf/section_inflation.h"
#include "dump/dwarf/unit_extractor.h"
#include "symbol_file/model/module_builder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct EarlyUnits {
  uint64_t end = 0;                 // every unit before this .debug_info offset was read
  std::vector<UnitSymbols> results; // in unit order
  std::vector<std::vector<std::string>> warnings; // of each unit
  std::vector<std::string> context_warnings;      // LLVM's, from the stages' contexts
  // Units read, then dropped as the stream failed (for -v).
  size_t dropped = 0;
};

// Whether no DIE described by this .debug_abbrev can refer into another
// unit (DW_FORM_ref_addr, ref_sig8, the supplementary-file forms, or one
// given in the DIE: DW_FORM_indirect) and no unit is a skeleton of a split
// unit. False when the section cannot be read to its end.
bool unitsStandAlone(llvm::StringRef abbreviations);

// Reads the units of `inflation`'s .debug_info as they become final, until
// the stream ends. Returns nothing read when the file does not qualify,
// when the stream fails, or when a unit header or abbreviation table cannot
// be read (the ordinary reading then sees to it).
// `cutter` checks each unit before LLVM parses it
// (dump/dwarf/die_overrun_guard).
// `readers` threads read the units of each stage, beside the one inflating;
// the stream is paced to them (DwarfInflation::startPacing).
EarlyUnits readUnitsWhileInflating(DwarfInflation& inflation, bool little_endian,
                                   uint8_t address_size, const ExtractOptions& options,
                                   DieCutter& cutter, unsigned readers);

} // namespace dumpsyms
