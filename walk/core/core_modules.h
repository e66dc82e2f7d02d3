// The ELF modules a core's process had loaded, found without the binaries:
// each file mapped from offset 0 (NT_FILE) whose first page the dump holds
// is read as an ELF header, and its build-id note gives the debug id a
// symbol store files it under. Without NT_FILE (cores written by other
// tools), every segment that starts with an ELF header is taken instead.
#pragma once

#include "common/ids/build_id.h"
#include "common/ids/debug_id.h"
#include "walk/core/core_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct CoreModule {
  std::string path;  // as mapped; "" when the core has no NT_FILE
  std::string name;  // file name of path
  uint64_t base = 0; // where offset 0 of the file is mapped: module offset 0
  uint64_t end = 0;  // end of its last mapping
  DebugId debug_id;  // from the build-id; "" when the dump lacks it
  BuildId build_id;  // hex, as `file` prints it; "" when unknown
};

// By base address.
std::vector<CoreModule> findCoreModules(const CoreFile& core);

// The module covering `address`, or nullptr.
const CoreModule* moduleAt(const std::vector<CoreModule>& modules, uint64_t address);

} // namespace dumpsyms
