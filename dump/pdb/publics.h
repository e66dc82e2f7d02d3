// The code symbols of the PDB's publics (S_PUB32 records of the symbol
// record stream): what PUBLIC records and FUNC names are made from.
#pragma once

#include "dump/pdb/pdb_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct PdbPublic {
  uint32_t rva = 0;
  std::string name; // decorated, as stored
};

// Publics flagged as code or function (with `in_code_sections`, also those
// in a code section whatever their flags, as DIA counts code: assembly
// labels carry none), in record order. Corrupt records are skipped and
// counted in `skipped`.
std::vector<PdbPublic> readCodePublics(PdbFile& pdb, size_t& skipped,
                                       bool in_code_sections = false);

} // namespace dumpsyms
