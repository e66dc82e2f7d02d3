// The links an ELF file carries to its companion files: .gnu_debuglink (a
// separate debug file and its CRC32), .gnu_debugaltlink and .debug_sup (the
// supplementary file dwz moved shared DWARF into, and its build-id).
#pragma once

#include "dump/object/elf_image.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct DebugLink {
  std::string name;
  uint32_t crc = 0;
};

struct AltLink {
  std::string name;
  std::vector<uint8_t> build_id; // may be empty (.debug_sup without checksum)
};

std::optional<DebugLink> readDebugLink(const ElfImage& image);
std::optional<AltLink> readAltLink(const ElfImage& image);

// CRC-32 (the .gnu_debuglink polynomial) of a whole file; nullopt if unreadable.
std::optional<uint32_t> fileCrc32(const std::string& path);

} // namespace dumpsyms
