// A microdump -- Breakpad's text crash record (V, O, P, R, G, H, S, C and M
// records between its BEGIN and END lines), found in an Android log or on
// stderr -- read into the process snapshot the walker takes: the crashing
// thread (its context, the minidump's layout for the CPU, and its stack),
// the executable mappings as modules (id and name as the M records give
// them), the system, the crash. Every architecture Breakpad's writer
// emits: arm, arm64, x86, x86_64, mips, mips64, riscv32, riscv64.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {

// The first microdump in the log at `path`.
llvm::Expected<ProcessSnapshot> readMicrodumpSnapshot(const std::string& path);
llvm::Expected<ProcessSnapshot> parseMicrodumpSnapshot(std::unique_ptr<llvm::MemoryBuffer> log,
                                                       const std::string& path);

} // namespace dumpsyms
