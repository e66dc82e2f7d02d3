// One binary's dump, whatever its format: finds its inputs, reads them
// through the flow for its format (ELF, PDB/PE, a PE alone, Mach-O), each
// ending in the one ModuleBuilder, and returns the module. Errors that stop
// the dump come back as llvm::Error naming the file; everything else is a
// warning in `diagnostics`. dump_syms, symstore and the fuzz targets call
// this; none of them knows a format.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/flows/options.h"
#include "symbol_file/model/module.h"
#include "symbol_file/text/text_writer.h"

#include <functional>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// What a dump learned about its inputs, for reports (symstore's manifest).
struct DumpFacts {
  std::string debug_info_from = "none"; // "binary", "debug-file", "pe-only" or "none"
  std::string debug_file;               // the separate debug file read, if any
  std::string debug_file_how;           // how it was found
};

// Told how far a long stage has got ("compile units", done, total), from
// worker threads.
using DumpProgress = std::function<void(const std::string& stage, size_t done, size_t total)>;

llvm::Expected<Module> dumpModule(const Options& options, Diagnostics& diagnostics,
                                  const DumpProgress& progress = nullptr,
                                  DumpFacts* facts = nullptr);

// The write options the command-line options ask for.
WriteOptions writeOptions(const Options& options);

} // namespace dumpsyms
