// The flow for an ELF binary: its build-id and headers, DWARF from the
// binary or its separate debug file (dwz, .dwo/.dwp, MiniDebugInfo),
// symbols from .symtab/.dynsym, STACK CFI from .eh_frame, .debug_frame and
// .ARM.exidx.
#pragma once

#include "dump/flows/dump_module.h"
#include "dump/object/elf_image.h"

namespace dumpsyms {

llvm::Expected<Module> dumpElfModule(const Options& options, Diagnostics& diagnostics,
                                     const DumpProgress& progress, DumpFacts* facts);

// MODULE and INFO of `binary` (name, cpu, ids) without reading anything
// else: what a symbol store files the dump under.
llvm::Expected<Module> moduleIdentity(const ElfImage& binary, const Options& options);

} // namespace dumpsyms
