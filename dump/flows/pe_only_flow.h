// The flow for a PE whose PDB is not at hand (or --pe-only): what the PE
// alone says, as Breakpad's and Mozilla's dumpers write it for third-party
// and system DLLs. MODULE and INFO from the CodeView record and the COFF
// headers, PUBLIC from the export table, STACK CFI from the x64 exception
// directory (.pdata/.xdata): enough for a stack walk to unwind through the
// module and name its exported entry points, with no FUNC or line records.
#pragma once

#include "dump/flows/dump_module.h"

namespace dumpsyms {

class PeImage;

llvm::Expected<Module> dumpPeOnlyModule(const PeImage& pe, const Options& options,
                                        Diagnostics& diagnostics);

} // namespace dumpsyms
