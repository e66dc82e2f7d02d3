// The whole flow for one binary: find its inputs, read them, build the
// module. Errors that stop the dump come back as llvm::Error naming the
// file; everything else is a warning in `diagnostics`.
#pragma once

#include "dump_syms/options.h"
#include "dump_syms/progress.h"
#include "object/elf_image.h"
#include "symbol_writer/diagnostics.h"
#include "symbol_writer/module.h"
#include "symbol_writer/text_writer.h"

#include <llvm/Support/Error.h>

namespace dumpsyms {

// What a dump learned about its inputs, for reports (symstore's manifest).
struct DumpFacts {
  std::string debug_info_from = "none"; // "binary", "debug-file", "pe-only" or "none"
  std::string debug_file;               // the separate debug file read, if any
  std::string debug_file_how;           // how it was found
};

llvm::Expected<Module> dumpModule(const Options& options, Diagnostics& diagnostics,
                                  Progress& progress, DumpFacts* facts = nullptr);

// MODULE and INFO of `binary` (name, cpu, ids) without reading anything
// else: what a symbol store files the dump under.
llvm::Expected<Module> moduleIdentity(const ElfImage& binary, const Options& options);

// The write options the command-line options ask for.
WriteOptions writeOptions(const Options& options);

} // namespace dumpsyms
