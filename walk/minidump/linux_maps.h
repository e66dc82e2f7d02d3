// The layout of a process's address space as a minidump gives it: the
// LinuxMaps stream (/proc/PID/maps as text) or Windows' MemoryInfoList.
#pragma once

#include "walk/snapshot/process_snapshot.h"

#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

// Lines that do not parse are skipped. By start address.
std::vector<MemoryMapping> parseLinuxMaps(llvm::StringRef text);

// MINIDUMP_MEMORY_INFO_LIST: committed regions, executable where their
// protection allows it. By start address.
std::vector<MemoryMapping> memoryInfoMappings(llvm::StringRef stream,
                                              std::vector<std::string>& warnings);

} // namespace dumpsyms
