// Whether two files hold the same bytes: how the store tells that a module's
// files are already there (symstore add --keep-binaries) and that an upload
// repeats what is stored (the directory backend).
#pragma once

#include <string>

namespace dumpsyms {

// Compares two open files from offset 0 with pread (their offsets are left
// alone); false on a read error.
bool sameFileBytes(int fd_a, int fd_b);

// The same for two paths; false when either cannot be opened.
bool sameFileBytes(const std::string& path_a, const std::string& path_b);

} // namespace dumpsyms
