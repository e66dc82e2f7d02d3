#include "tools/dump_syms/manual.h"

namespace dumpsyms {

const ToolManual& dumpSymsManual() {
  static const ToolManual manual{
      "dump_syms",
      "write the Breakpad symbol file of an ELF, Mach-O or PE/PDB binary",
      "",
      {"dump_syms reads one binary and its debug information and writes its Breakpad text "
       "symbol file: MODULE and INFO records keyed by the module's debug identifier, FILE, "
       "FUNC and line records, INLINE_ORIGIN and INLINE records (with -d), PUBLIC records, "
       "and the unwind rules a stack walker needs (STACK CFI, STACK WIN). Breakpad's "
       "processor, rust-minidump, Crashpad back ends and symtool read it.",
       "Inputs: an ELF executable or shared library with its DWARF (in the file, in a separate "
       "debug file found by build-id, .gnu_debuglink, a DEBUG_DIR, /usr/lib/debug or "
       "debuginfod, with split DWARF and dwz); a Windows PDB, or a PE (.exe, .dll) whose PDB "
       "is found beside it, at its recorded path, in a DEBUG_DIR or on a symbol server; a PE "
       "whose DWARF is in itself or in a companion its .gnu_debuglink names (MinGW-w64's GCC "
       "and Clang, Rust's windows-gnu); or a PE alone (exports and .pdata); a Mach-O executable, "
       "dylib or bundle with its dSYM (beside it, in a "
       "DEBUG_DIR, or given), a dSYM alone, or one slice of a universal file (--arch).",
       "The symbol file goes to standard output, to --output FILE or into a symbol store "
       "(--store DIR), always written whole or not at all. Warnings are counted on standard "
       "error (-v lists them); errors are one line naming the file."},
      {},
      {{"0", "the symbol file was written"},
       {"1", "the input could not be read, is no binary this tool reads, or --check-cfi "
             "found no unwind information (nothing is written)"},
       {"2", "the command line is wrong"}},
      {{"dump_syms /usr/bin/python3.11 > python3.11.sym",
        "the symbols of a Debian binary, its debug file found in /usr/lib/debug"},
       {"dump_syms -d --store symbols build/libfoo.so",
        "with inlined calls, into a symbol store (prints symbols/libfoo.so/ID/libfoo.so.sym)"},
       {"dump_syms app.exe", "a PE and its PDB (found beside it or by its CodeView record)"},
       {"dump_syms -d mingw_app.exe",
        "a MinGW-w64 build: its DWARF, in the PE or in the companion its .gnu_debuglink names"},
       {"dump_syms --arch arm64 MyApp.app/Contents/MacOS/MyApp dsyms/MyApp.dSYM",
        "the arm64 slice of a universal macOS binary with its dSYM"},
       {"dump_syms -i app", "only the MODULE and INFO records: what a store files it under"}},
      {"symstore", "symtool", "minidump_stackwalk"}};
  return manual;
}

} // namespace dumpsyms
