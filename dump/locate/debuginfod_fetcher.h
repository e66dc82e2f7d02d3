// Fetches debug files by build-id from debuginfod servers (the
// DEBUGINFOD_URLS environment variable) through elfutils' libdebuginfod,
// which keeps its own cache (DEBUGINFOD_CACHE_PATH).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// True when DEBUGINFOD_URLS names at least one server.
bool debuginfodConfigured();

// The path of the cached debug file for `build_id`, or std::nullopt (with
// the reason in `error`) when no server has it.
std::optional<std::string> fetchDebugInfo(const std::vector<uint8_t>& build_id, std::string& error);

} // namespace dumpsyms
