// A minidump (Breakpad's, Crashpad's, lldb's, Windows' MiniDumpWriteDump)
// as a process snapshot: threads and their contexts (the Exception stream's
// context replacing the crashing thread's), thread names, modules with
// their CodeView identities and versions, unloaded modules, memory
// (MemoryList and Memory64List), the crash, SystemInfo, MiscInfo,
// BreakpadInfo, AssertionInfo and the Linux streams (LinuxMaps giving the
// true extent of modules whose size covers one segment).
//
// What cannot be read is an error only when nothing could be walked (no
// header, no directory, no thread list); every other damaged stream is a
// warning in the snapshot and the walk goes on without it.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {

llvm::Expected<ProcessSnapshot> readMinidumpSnapshot(const std::string& path);
// The same from bytes already in memory (the fuzz target's entry).
llvm::Expected<ProcessSnapshot> parseMinidumpSnapshot(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                      const std::string& path);

} // namespace dumpsyms
