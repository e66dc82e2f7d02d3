// The Windows files of a release: PE images (.exe/.dll) and PDBs. A PE is
// one module, dumped with the PDB of the release that has its GUID and age
// (or, if none, the one the dump finds itself, or its DWARF: MinGW builds);
// a PDB no PE in the release claims is a module of its own. The companions
// `objcopy --only-keep-debug` makes of PEs are not modules.
#pragma once

#include "symbol_file/model/module.h"

#include <llvm/Support/Error.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct WindowsFile {
  bool is_pdb = false;
  Module identity; // MODULE/INFO fields: what the store files the dump under
};

// std::nullopt when the file is neither a PE image nor a PDB (or is a PE's
// debug companion); an error when it starts like one but cannot be read.
std::optional<llvm::Expected<WindowsFile>> examineWindowsFile(const std::string& path);

} // namespace dumpsyms
