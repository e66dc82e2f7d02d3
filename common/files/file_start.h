// A file's first bytes: what tells the object formats apart (ELF, PE, PDB,
// Mach-O) before a reader is chosen.
#pragma once

#include <cstddef>
#include <string>

namespace dumpsyms {

// Up to `count` bytes from the start of `path`; fewer for a shorter file,
// none when it cannot be read (the reader chosen next says why).
std::string fileStart(const std::string& path, size_t count = 64);

} // namespace dumpsyms
