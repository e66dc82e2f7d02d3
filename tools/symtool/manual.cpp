#include "tools/symtool/manual.h"

namespace dumpsyms {

const ToolManual& symtoolManual() {
  static const ToolManual manual{
      "symtool",
      "read Breakpad symbol files back: lookups, crash text, stack walks, checks",
      "",
      {"symtool reads what dump_syms and symstore write, through one parser of the format "
       "and one lookup index. lookup says what is at module-relative addresses (function, "
       "file and line, inlined calls); symbolize resolves crash text (glibc backtraces, "
       "Solaris printstack, module + offset lines, JSON crash reports) against a store; "
       "stackwalk unwinds every thread of a minidump, an ELF core file or a microdump as "
       "Breakpad's processor does, and prints it in its own form, JSON, Breakpad's human and "
       "machine forms or rust-minidump's JSON; validate checks files against the format; "
       "stats counts; diff compares two builds; index writes each file's lookup index beside "
       "it.",
       "Lookups read a binary index of each symbol file, built on first use and kept in the "
       "index cache (--index-cache; by default $XDG_CACHE_HOME/symtool/index), then mapped: "
       "a lookup in a large file takes milliseconds. Symbol files can also come from HTTP "
       "symbol servers (--symbols-url), kept in a local cache. stackwalk --explain says, per "
       "module, every store path, cache path and URL its symbols were looked for at, in "
       "order, and what each answered: why a frame has no name."},
      {},
      {{"0", "done (validate: no problem found; diff: the files are the same)"},
       {"1", "an input could not be read (validate: problems found; diff: the files differ)"},
       {"2", "the command line is wrong"}},
      {{"symtool lookup symbols --module app 0x1180", "what is at 0x1180 in app's symbols"},
       {"symtool symbolize --store symbols crash.txt", "a logged backtrace, resolved"},
       {"symtool stackwalk --store symbols --format breakpad crash.dmp",
        "a minidump walked, printed as Breakpad's minidump_stackwalk prints it"},
       {"symtool stackwalk --store symbols --symbols-url https://symbols.example.com "
        "--explain crash.dmp",
        "the same walk, saying on stderr where each module's symbols were looked for"},
       {"symtool validate symbols/app/*/app.sym", "every problem with its line number"},
       {"symtool stats --json app.sym",
        "records by kind, bytes covered and the largest functions, as one JSON object"},
       {"symtool index /srv/symbols", "each file's lookup index written beside it"}},
      {"dump_syms", "symstore", "minidump_stackwalk"}};
  return manual;
}

} // namespace dumpsyms
