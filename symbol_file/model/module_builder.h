// ModuleBuilder gathers what the readers extracted and finalizes it into a
// Module that the writer can print as it is: sorted, de-duplicated, with no
// overlapping FUNC, line or STACK CFI INIT ranges, and FILE / INLINE_ORIGIN
// tables holding exactly the entries that records reference.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

// What the debug-info reader hands over for one compilation unit. Line and
// inline records index `files` and `origins` of the same unit; the builder
// interns them into the module's tables.
struct UnitSymbols {
  std::vector<std::string> files;
  std::vector<std::string> origins;
  std::vector<Function> functions;
  // Line-table rows that no function of the unit covers (assembly code has
  // rows but no DW_TAG_subprogram); the builder gives them a FUNC named by the
  // symbol table where one covers them.
  std::vector<SourceLine> unclaimed_lines;
};

// A code symbol from the ELF symbol table, name already demangled.
struct CodeSymbol {
  uint64_t address = 0;
  uint64_t size = 0;
  std::string name;
  uint64_t parameter_size = 0; // its PUBLIC record's (x86 stdcall/fastcall)
  bool multiple = false;       // the reader knows others share the address
};

// Where a CFI frame came from; on overlap the lower value wins.
// (A PE's exception directory comes last: where MinGW's compilers also
// wrote DWARF CFI, that describes every instruction, epilogues included.)
enum class CfiSource {
  EhFrame = 0,
  DebugFrame = 1,
  ArmExidx = 2,
  CompactUnwind = 3,
  ExceptionDirectory = 4
};

struct BuildOptions {
  bool mark_multiple = false; // -m: set the `m` flag on FUNC/PUBLIC sharing an address
  bool keep_inlines = true;
  // Keep the PUBLIC records whose address lies inside a function (not at
  // its entry), as Breakpad's Windows dump_syms writes them.
  bool publics_inside_functions = false;
  unsigned threads = 1; // to clip functions' lines (0: one per core)
  // Rules for the parts of functions no CFI frame covers; empty: none.
  // Windows on ARM64 gives leaf functions no unwind data, and the
  // platform's unwinder then takes the return address from lr and leaves
  // sp alone: its flow says so here.
  std::vector<CfiRule> uncovered_function_rules;
};

// Counts of what finalization had to drop or repair, for warnings.
struct BuildStats {
  uint64_t functions_outside_segments = 0;
  uint64_t functions_merged = 0;        // same address as another function
  uint64_t function_ranges_trimmed = 0; // overlapped another function
  uint64_t lines_dropped = 0;           // overlapping or outside every function
  uint64_t functions_from_symbols = 0;  // FUNCs made from symbol-table entries
  uint64_t cfi_frames_overlapping = 0;
};

class ModuleBuilder {
public:
  // `header` supplies the MODULE / INFO fields and the load address.
  explicit ModuleBuilder(Module header);

  // Addresses outside every loaded segment belong to discarded code: the
  // functions, publics and CFI frames that start there are dropped. Without
  // any segment nothing is filtered.
  void setLoadedRanges(std::vector<AddressRange> ranges);

  // Units are merged in the order they are added; add them in a fixed order
  // (for example by unit offset) for deterministic output.
  void addUnit(UnitSymbols unit);
  // Symbols in symbol-table order: the first one at an address names it.
  void addCodeSymbol(CodeSymbol symbol);
  void addCfiFrame(CfiFrame frame, CfiSource source);

  Module finish(const BuildOptions& options, BuildStats& stats) &&;

private:
  struct SourcedFrame {
    CfiFrame frame;
    CfiSource source;
  };

  bool isLoaded(uint64_t address) const;
  uint32_t internFile(const std::string& path);
  uint32_t internOrigin(const std::string& name);
  void finishFunctions(const BuildOptions& options, BuildStats& stats);
  void addFunctionsForUnclaimedLines(BuildStats& stats);
  void finishPublics(const BuildOptions& options);
  void finishCfi(const BuildOptions& options, BuildStats& stats);
  void renumberFilesAndOrigins();

  Module module_;
  std::vector<AddressRange> loaded_;
  std::vector<CodeSymbol> symbols_;
  std::vector<SourceLine> unclaimed_lines_;
  std::vector<SourcedFrame> frames_;
  std::unordered_map<std::string, uint32_t> file_ids_;
  std::unordered_map<std::string, uint32_t> origin_ids_;
};

} // namespace dumpsyms
