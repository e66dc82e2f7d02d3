// Where a named section's bytes lie in an ELF file, for debuginfod's
// /buildid/<ID>/section/<name>: served straight from the file, as they
// are there (a compressed section stays compressed, as elfutils'
// debuginfod serves it).
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct ElfSectionSpan {
  enum class Kind {
    Absent, // no section of that name (or not an ELF file)
    NoBits, // SHT_NOBITS: named, but without bytes in this file
    Bytes,
  };
  Kind kind = Kind::Absent;
  uint64_t offset = 0;
  uint64_t size = 0;
};

// Reads the ELF header, section table and section names of the open
// file `fd` (`size` bytes long). `name` is the section's full name
// (".debug_info"). A file that is not a valid ELF image gives Absent.
ElfSectionSpan findElfSection(int fd, uint64_t size, const std::string& name);

} // namespace dumpsyms
