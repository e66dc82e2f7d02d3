// The export table of a PE (IMAGE_EXPORT_DIRECTORY): the names and RVAs of
// the functions a DLL (or an EXE) exports, what a PE without its PDB still
// names its code by. Read by our own bounded parser over the PE's section
// bytes: LLVM's export_directories() follows the table's RVAs unchecked.
#pragma once

#include "dump/pe/pe_image.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct PeExport {
  uint32_t rva = 0;
  std::string name; // as exported (C names plain, C++ names mangled)
};

struct PeExports {
  std::vector<PeExport> exports; // named, not forwarded, in name-table order
  std::vector<std::string> problems;
};

// Forwarders (an RVA inside the export directory: "OTHER.dll.Name") and
// exports with an ordinal only have no code here and are left out.
PeExports readPeExports(const PeImage& pe);

} // namespace dumpsyms
