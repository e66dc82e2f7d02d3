// Fetches debug files by build-id from debuginfod servers (the
// DEBUGINFOD_URLS environment variable) through elfutils' libdebuginfod,
// which keeps its own cache (DEBUGINFOD_CACHE_PATH).
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

// True when DEBUGINFOD_URLS names at least one server.
bool debuginfodConfigured();

// The path of the cached debug file for `build_id`, or an error saying why
// no server gave it.
llvm::Expected<std::string> fetchDebugInfo(const std::vector<uint8_t>& build_id);

} // namespace dumpsyms
