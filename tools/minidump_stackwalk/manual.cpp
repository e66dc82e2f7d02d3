#include "tools/minidump_stackwalk/manual.h"

namespace dumpsyms {

const ToolManual& minidumpStackwalkManual() {
  static const ToolManual manual{
      "minidump_stackwalk",
      "walk a minidump's stacks as Breakpad's minidump_stackwalk does",
      "[\\fB-m\\fR] [\\fB-f\\fR \\fIFORMAT\\fR] [\\fB-s\\fR] [\\fB-c\\fR|\\fB-t\\fR "
      "\\fIINDEX\\fR] [\\fB-d\\fR] [\\fB-b\\fR] [\\fB-v\\fR] \\fIDUMP\\fR "
      "[\\fISYMBOL_PATH\\fR...]",
      {"A drop-in for Google Breakpad's minidump_stackwalk: the same options, the same output "
       "(the human form, or the pipe-delimited machine form) and the same exit status, over "
       "this project's minidump reader, stack walker and symbol index, so that a crash "
       "server shelling out to Breakpad's processor switches by changing a path. Each "
       "SYMBOL_PATH is a symbol store laid out as <debug_file>/<DEBUG_ID>/<name>.sym, "
       "searched in order; the linux-gate.so templates installed with the tools are "
       "searched last. DUMP may also be an ELF core file.",
       "The walk follows Breakpad's processor's rules exactly (symtool stackwalk's default "
       "walk corrects four of them)."},
      {{"-f", "FORMAT",
        "Output format (default: human)\nPossible FORMAT values:\n"
        "  human    Human-readable text output\n"
        "  machine  Pipe-delimited machine-readable output"},
       {"-m", "", "Output in machine-readable format (deprecated, use -f machine)"},
       {"-s", "", "Output stack contents"},
       {"-c", "", "Output thread that causes crash or dump only"},
       {"-t", "<index>", "Output thread with given index only"},
       {"-d", "", "Dump pointers on stack"},
       {"-b", "", "Brief of the thread that causes crash or dump"},
       {"-v", "",
        "Verbose: on stderr, per module, every symbol file path tried and what each answered "
        "(not in Breakpad's)"}},
      {{"0", "the dump was walked and printed"},
       {"1", "the dump could not be read, or the command line is wrong"}},
      {{"minidump_stackwalk crash.dmp symbols", "the crash walked with the symbols of a store"},
       {"minidump_stackwalk -m crash.dmp symbols /srv/more-symbols",
        "the machine form, with two stores"},
       {"minidump_stackwalk -v crash.dmp symbols /srv/more-symbols",
        "the same walk, saying on stderr where each module's symbols were looked for"}},
      {"symtool", "microdump_stackwalk", "dump_syms"}};
  return manual;
}

} // namespace dumpsyms
