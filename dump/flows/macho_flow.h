// The flow for a Mach-O binary (an executable, dylib or bundle, thin or one
// slice of a universal file) or a dSYM: MODULE and INFO from its UUID and
// cpu, functions, lines and inlined calls from the dSYM's DWARF (found
// beside the binary, in a debug directory or given) or the binary's own,
// PUBLIC from the symbol table, STACK CFI from __eh_frame and
// __debug_frame, and from compact unwind (__unwind_info) for the code
// neither covers.
#pragma once

#include "dump/flows/dump_module.h"
#include "dump/macho/macho_image.h"

namespace dumpsyms {

// Whether `path` is a Mach-O file (thin or universal) or a dSYM bundle.
bool isMachOInput(const std::string& path);

llvm::Expected<Module> dumpMachOModule(const Options& options, Diagnostics& diagnostics,
                                       const DumpProgress& progress, DumpFacts* facts);

// MODULE and INFO of `image`: "mac", Breakpad's cpu name, the UUID as
// Breakpad writes it (its bytes in order, upper-case hex, age 0), INFO
// CODE_ID the UUID, the file's name; addresses relative to __TEXT.
llvm::Expected<Module> machOIdentity(const MachOImage& image, const Options& options);

// The image's debug id (what a store files it under) and its code id.
DebugId machODebugId(const MachOImage& image);

} // namespace dumpsyms
