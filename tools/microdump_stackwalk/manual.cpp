#include "tools/microdump_stackwalk/manual.h"

namespace dumpsyms {

const ToolManual& microdumpStackwalkManual() {
  static const ToolManual manual{
      "microdump_stackwalk",
      "walk a microdump's stack as Breakpad's microdump_stackwalk does",
      "[\\fB-m\\fR] [\\fB-s\\fR] [\\fB-v\\fR] \\fIDUMP\\fR [\\fISYMBOL_PATH\\fR...]",
      {"A drop-in for Google Breakpad's microdump_stackwalk: DUMP is a log (Android's logcat "
       "in its brief or threadtime form, or bare lines) holding a microdump, Breakpad's text "
       "crash record; the first one is read, and its crashing thread is walked and printed "
       "as Breakpad's processor prints it, with the same options and exit status. Each "
       "SYMBOL_PATH is a symbol store. Unlike Breakpad's it also walks x86_64 and riscv "
       "microdumps, and lines without a logcat prefix."},
      {{"-m", "", "Output in machine-readable format"},
       {"-s", "", "Output stack contents"},
       {"-v", "",
        "Verbose: on stderr, per module, every symbol file path tried and what each answered "
        "(not in Breakpad's)"}},
      {{"0", "the microdump was walked and printed"},
       {"1", "no microdump could be read, or the command line is wrong"}},
      {{"microdump_stackwalk logcat.txt symbols",
        "the first microdump of a log walked with a store's symbols"}},
      {"minidump_stackwalk", "symtool"}};
  return manual;
}

} // namespace dumpsyms
