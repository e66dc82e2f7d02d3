// Where a tool keeps what it caches for the user: symbol files fetched
// from servers, PDBs, symbol indexes.
#pragma once

#include <string>

namespace dumpsyms {

// $XDG_CACHE_HOME/TOOL/WHAT, else ~/.cache/TOOL/WHAT, else /tmp/TOOL-UID/WHAT.
std::string userCacheDir(const std::string& tool, const std::string& what);

} // namespace dumpsyms
