// An ELF core file as a process snapshot: its threads, memory (PT_LOAD),
// mappings, the modules found in it (core_modules) and the crash (the
// thread a fatal signal stopped).
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {

llvm::Expected<ProcessSnapshot> readCoreSnapshot(const std::string& path);
// The same from bytes already in memory (the fuzz target's entry).
llvm::Expected<ProcessSnapshot> parseCoreSnapshot(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                  const std::string& path);

} // namespace dumpsyms
