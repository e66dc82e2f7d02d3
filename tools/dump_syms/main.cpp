// dump_syms: writes the Breakpad symbol file of a binary (ELF, PDB/PE,
// Mach-O): the command line, progress and exit codes over dump/flows/.
#include "common/command_line/command_line.h"
#include "common/files/atomic_file.h"
#include "common/progress/progress.h"
#include "dump/flows/dump_module.h"
#include "dump/flows/options.h"
#include "store/layout/layout.h"
#include "symbol_file/text/text_writer.h"
#include "tools/dump_syms/manual.h"
#include "tools/shared_flags/dump_flags.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <llvm/Support/ErrorHandling.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <new>
#include <unistd.h>

namespace {

using namespace dumpsyms;

void defineOptions(CLI::App& app, Options& o) {
  app.add_option("BINARY", o.binary,
                 "the file to dump: ELF, PDB, PE (.exe/.dll), Mach-O (thin or universal) or a "
                 ".dSYM bundle");
  app.add_option("DEBUG_DIR", o.debug_dirs,
                 "where to look for separate debug files, PDBs and dSYMs too (a .dSYM bundle "
                 "may be given itself)");
  app.add_flag("-i", o.header_only, "write only the MODULE and INFO records");
  app.add_flag("-a", o.absolute_addresses,
               "write absolute addresses, not relative to the load address");
  app.add_flag("-m", o.mark_multiple,
               "mark FUNC and PUBLIC records whose code other symbols share (m)");
  app.add_option_function<std::string>(
      "-b", [&o](const std::string& id) { o.debug_id_override = DebugId(id); },
      "use this debug identifier in the MODULE record");
  app.add_option("-n", o.name_override, "module name to use when the binary has no DT_SONAME");
  app.add_option("-o", o.os,
                 "operating system for the MODULE record (default: Linux for ELF, mac for "
                 "Mach-O, windows for PDB/PE)");
  app.add_option("--arch", o.arch,
                 "of a universal (fat) Mach-O file, the slice to dump: x86_64, arm64, arm64e, "
                 "i386 (x86), ...");
  auto* output =
      app.add_option("--output", o.output, "write the symbol file here instead of stdout");
  app.add_option("--store", o.store,
                 "write into a symbol store: DIR/<name>/<DEBUG_ID>/<name>.sym (prints the path)")
      ->excludes(output);
  app.add_option("-j,--jobs", o.jobs, "threads to use (default: one per core)");
  app.add_option("--debug-file", o.debug_file,
                 "read functions and lines from this debug file (an ELF debug file, a dSYM, a "
                 "PDB, or the debug-only companion of a PE that objcopy made)");
  app.add_option_function<std::string>(
      "--code-id", [&o](const std::string& id) { o.code_id = CodeId(id); },
      "for a PDB given alone: its PE's code id (TimeDateStamp and SizeOfImage, as "
      "INFO CODE_ID writes it), to fetch the PE from the symbol servers");
  app.add_option("--code-file", o.code_file,
                 "with --code-id: the PE's file name (default: the PDB's name with .dll, then "
                 ".exe)");
  app.add_flag("--pe-only", o.pe_only,
               "dump a PE from itself alone (exports, .pdata), not its PDB or DWARF; a PE "
               "with neither a PDB found nor DWARF is dumped so anyway, with a warning");
  app.add_option("--dwp", o.dwp, "DWARF package file for split DWARF (default: BINARY.dwp)");
  app.add_option("--linux-gate", o.linux_gate,
                 "write Breakpad's linux-gate.so template (intel or amd)")
      ->check(CLI::IsMember({"intel", "amd"}));
  app.add_flag("--vdso", o.vdso, "dump the running kernel's vDSO (MODULE name linux-gate.so)")
      ->excludes("--linux-gate");
  addDumpShapeOptions(app, o);
  app.add_flag("-r", o.no_cross_unit_references,
               "accepted for Breakpad compatibility: cross-unit references are always followed");
  app.add_flag("-v,--verbose", o.verbose, "print every warning and what was read from where");
  app.add_flag("-q,--quiet", o.quiet, "print nothing but errors");
}

void printDiagnostics(const Diagnostics& diagnostics, const Options& options) {
  if (options.quiet)
    return;
  if (options.verbose) {
    for (const std::string& note : diagnostics.notes())
      std::fprintf(stderr, "dump_syms: %s\n", note.c_str());
    for (const std::string& warning : diagnostics.warnings())
      std::fprintf(stderr, "dump_syms: warning: %s\n", warning.c_str());
  } else if (!diagnostics.warnings().empty()) {
    std::fprintf(stderr, "dump_syms: %zu warning%s (-v shows them)\n",
                 diagnostics.warnings().size(), diagnostics.warnings().size() == 1 ? "" : "s");
  }
}

} // namespace

int main(int argc, char** argv) {
  Options options;
  const std::string* current_input = nullptr;
  installInputErrorHandlers("dump_syms", &current_input);
  CLI::App app{"Writes the Breakpad symbol file of a binary: an ELF file (with its DWARF, or a "
               "separate debug file), a PDB or a PE (.exe, .dll), a Mach-O file (with its dSYM) "
               "or a dSYM.",
               "dump_syms"};
  defineOptions(app, options);
  applyManual(app, dumpSymsManual());
  if (auto status = printManualIfAsked(dumpSymsManual(), &app, argc, argv))
    return *status;
  if (auto status = parseCommandLine(app, argc, argv))
    return *status;
  bool builtin_input = options.vdso || !options.linux_gate.empty();
  if (builtin_input && !options.binary.empty()) {
    std::fprintf(stderr,
                 "dump_syms: --vdso and --linux-gate take no BINARY\nRun with --help for usage.\n");
    return kExitUsage;
  }
  if (options.binary.empty() && !builtin_input) {
    std::fprintf(stderr, "dump_syms: no BINARY given\nRun with --help for usage.\n");
    return kExitUsage;
  }

  if (options.no_cross_unit_references && options.verbose && !options.quiet)
    std::fprintf(stderr, "dump_syms: -r has no effect: references between compile units are "
                         "always followed\n");
  current_input = &options.binary;
  Diagnostics diagnostics;
  Progress progress(!options.quiet && isatty(STDERR_FILENO));
  auto module =
      dumpModule(options, diagnostics, [&](const std::string& stage, size_t done, size_t total) {
        progress.update(stage, done, total);
      });
  progress.finish();
  if (!module) {
    printDiagnostics(diagnostics, options);
    std::fprintf(stderr, "dump_syms: error: %s\n", llvm::toString(module.takeError()).c_str());
    return kExitError;
  }

  WriteOptions write_options = writeOptions(options);
  auto write = [&](std::ostream& out) { writeSymbolFile(*module, write_options, out); };
  printDiagnostics(diagnostics, options);
  if (options.output.empty() && options.store.empty()) {
    std::ios::sync_with_stdio(false);
    write(std::cout);
    std::cout.flush();
    if (!std::cout) {
      std::fprintf(stderr, "dump_syms: error: cannot write to standard output\n");
      return kExitError;
    }
    return 0;
  }
  std::string path = options.output;
  if (!options.store.empty()) {
    path = options.store + "/" +
           moduleRelativePath(module->name, module->debug_id, module->code_file, module->code_id);
    std::error_code error = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    if (error) {
      std::fprintf(stderr, "dump_syms: error: %s: cannot create the directory: %s\n", path.c_str(),
                   error.message().c_str());
      return kExitError;
    }
  }
  if (llvm::Error error = writeFileAtomically(path, write)) {
    std::fprintf(stderr, "dump_syms: error: %s\n", llvm::toString(std::move(error)).c_str());
    return kExitError;
  }
  if (!options.store.empty() && !options.quiet)
    std::printf("%s\n", path.c_str());
  return 0;
}
