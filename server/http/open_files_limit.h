// A server for a thousand clients needs a thousand descriptors and more
// (each download holds a file open while it is sent); the usual soft limit
// is 1024. Raised to the hard limit at start.
#pragma once

#include <cstdint>

namespace dumpsyms {

// Raises RLIMIT_NOFILE's soft limit to its hard limit; returns the limit now.
uint64_t raiseOpenFilesLimit();

} // namespace dumpsyms
