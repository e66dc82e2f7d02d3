// The steps every dump flow of DWARF-bearing input shares: the DWARF
// reader's options the command line asks for, the unwind tables handed to
// the builder, the module finished (functions, lines,
// publics and CFI made consistent), --map-prefix applied, --check-cfi
// enforced, and what finishing dropped or repaired noted for -v.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/dwarf/debug_info_reader.h"
#include "dump/flows/dump_module.h"
#include "dump/flows/options.h"
#include "dump/object/elf_image.h"
#include "dump/object/symbol_table.h"
#include "symbol_file/model/module_builder.h"

#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

// What the command line asks of the DWARF reader (names, inlines, threads,
// progress as "compile units"), with `symbols` naming what DWARF leaves
// unnamed; a flow adds what its input needs (split DWARF, dwz).
DebugInfoOptions dumpDebugInfoOptions(const Options& options, const SymbolIndex& symbols,
                                      const DumpProgress& progress);

// .eh_frame, .debug_frame (and .ARM.exidx) of `images`, in order of
// preference, into the builder; untranslatable rules counted in a warning
// about `name`.
void addUnwindTables(ModuleBuilder& builder, const std::vector<const ElfImage*>& images,
                     const std::string& name, Diagnostics& diagnostics);

// `no_cfi_sources`: what --check-cfi's error says the module lacks;
// `uncovered_function_rules`: the platform's rules for functions no CFI
// covers (BuildOptions), if it has any.
llvm::Expected<Module> finishDump(ModuleBuilder builder, const Options& options,
                                  Diagnostics& diagnostics, const std::string& no_cfi_sources,
                                  std::vector<CfiRule> uncovered_function_rules = {});

} // namespace dumpsyms
