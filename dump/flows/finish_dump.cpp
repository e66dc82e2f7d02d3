#include "dump/flows/finish_dump.h"

#include "dump/cfi/unwind_info_reader.h"
#include "dump/flows/path_prefix_map.h"

namespace dumpsyms {

DebugInfoOptions dumpDebugInfoOptions(const Options& options, const SymbolIndex& symbols,
                                      const DumpProgress& progress) {
  DebugInfoOptions dwarf_options;
  dwarf_options.extract.symbols = &symbols;
  dwarf_options.extract.inlines = options.inlines;
  dwarf_options.extract.names = options.names;
  dwarf_options.threads = options.jobs;
  if (progress)
    dwarf_options.progress = [progress](size_t done, size_t total) {
      progress("compile units", done, total);
    };
  return dwarf_options;
}

void addUnwindTables(ModuleBuilder& builder, const std::vector<const ElfImage*>& images,
                     const std::string& name, Diagnostics& diagnostics) {
  CfiStats cfi_stats;
  for (UnwindFrame& unwind : readUnwindInfo(images, cfi_stats, diagnostics))
    builder.addCfiFrame(std::move(unwind.frame), unwind.source);
  if (cfi_stats.rules_untranslated) {
    diagnostics.warn(name + ": " + std::to_string(cfi_stats.rules_untranslated) +
                     " CFI rules could not be said in postfix and were written as .undef");
    for (const auto& [reason, count] : cfi_stats.reasons)
      diagnostics.note("  " + std::to_string(count) + " x " + reason);
  }
}

llvm::Expected<Module> finishDump(ModuleBuilder builder, const Options& options,
                                  Diagnostics& diagnostics, const std::string& no_cfi_sources,
                                  std::vector<CfiRule> uncovered_function_rules) {
  BuildOptions build_options;
  build_options.uncovered_function_rules = std::move(uncovered_function_rules);
  build_options.mark_multiple = options.mark_multiple;
  build_options.keep_inlines = options.inlines;
  build_options.threads = options.jobs;
  BuildStats stats;
  Module module = std::move(builder).finish(build_options, stats);
  std::vector<PathPrefixMapping> prefix_map;
  for (const std::string& mapping : options.path_prefix_map)
    if (auto parsed = parsePathPrefixMapping(mapping))
      prefix_map.push_back(*parsed);
  applyPathPrefixMap(module, prefix_map);
  if (options.check_cfi && module.cfi_frames.empty())
    return fileError(options.binary,
                     "no STACK CFI records (--check-cfi): the module has " + no_cfi_sources);
  if (stats.functions_from_symbols)
    diagnostics.note(
        std::to_string(stats.functions_from_symbols) +
        " FUNC records named from the symbol table (line rows without a DWARF function)");
  auto note = [&](uint64_t count, const char* what) {
    if (count)
      diagnostics.note(std::to_string(count) + " " + what);
  };
  note(stats.functions_outside_segments,
       "functions dropped: their code lies outside every loaded segment (discarded by the linker)");
  note(stats.functions_merged,
       "functions share their entry address with another (identical code folded)");
  note(stats.function_ranges_trimmed,
       "function ranges trimmed where they overlapped another function");
  note(stats.cfi_frames_overlapping,
       "CFI frames left out where another source already covered the code (.eh_frame preferred)");
  if (stats.lines_dropped)
    diagnostics.note(std::to_string(stats.lines_dropped) +
                     " line rows dropped (overlapping, or outside every function and symbol)");
  return module;
}

} // namespace dumpsyms
