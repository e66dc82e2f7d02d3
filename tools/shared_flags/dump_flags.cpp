#include "tools/shared_flags/dump_flags.h"

#include <map>
#include <string>

namespace dumpsyms {

namespace {

const CLI::Validator kPrefixMapping(
    [](std::string& value) {
      return value.find('=') == std::string::npos || value.front() == '=' ? "expected OLD=NEW" : "";
    },
    "OLD=NEW");

} // namespace

void addDumpShapeOptions(CLI::App& app, Options& o) {
  app.add_flag("-d,--inlines", o.inlines, "write INLINE_ORIGIN and INLINE records");
  app.add_flag("-c", o.no_cfi, "leave out STACK CFI records");
  app.add_option(
         "--names", o.names,
         "spell function names as llvm (llvm-symbolizer) or breakpad (Breakpad's dump_syms)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, NameStyle>{{"llvm", NameStyle::Llvm},
                                           {"breakpad", NameStyle::Breakpad}},
          CLI::ignore_case))
      ->option_text("llvm|breakpad (default: llvm)");
  app.add_option("--map-prefix", o.path_prefix_map,
                 "OLD=NEW: rewrite source paths starting with OLD (first match wins)")
      ->check(kPrefixMapping)
      ->allow_extra_args(false)
      ->option_text("OLD=NEW ...");
  app.add_flag("--check-cfi", o.check_cfi,
               "fail (exit 1, write nothing) when the module has no STACK CFI at all");
  app.add_flag("--no-debuginfod", o.no_debuginfod, "never fetch debug files from debuginfod");
  app.add_option("--symbol-server", o.symbol_servers,
                 "SPEC: fetch a PE's PDB (or a PDB's PE) from this Windows symbol server or "
                 "store when it is not at hand: srv*CACHE*URL, cache*DIR, DIR or a URL; "
                 "repeatable, tried before $_NT_SYMBOL_PATH")
      ->allow_extra_args(false)
      ->option_text("SPEC ...");
}

} // namespace dumpsyms
