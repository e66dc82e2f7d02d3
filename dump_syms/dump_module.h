// The whole flow for one binary: find its inputs, read them, build the
// module. Errors that stop the dump come back as llvm::Error naming the
// file; everything else is a warning in `diagnostics`.
#pragma once

#include "dump_syms/options.h"
#include "dump_syms/progress.h"
#include "symbol_writer/diagnostics.h"
#include "symbol_writer/module.h"

#include <llvm/Support/Error.h>

namespace dumpsyms {

llvm::Expected<Module> dumpModule(const Options& options, Diagnostics& diagnostics,
                                  Progress& progress);

} // namespace dumpsyms
