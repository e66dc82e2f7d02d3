// The Mach-O files of a release: each slice of a binary (thin or universal)
// is a module of its own, dumped with the dSYM of the release that has its
// UUID (or, if none, the one the dump finds itself); a dSYM no binary in
// the release claims is a module of its own.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct MachOSliceFile {
  std::string arch;       // --arch of the slice
  bool universal = false; // the file holds several slices
  bool is_dsym = false;
  bool has_dwarf = false;
  uint64_t dwarf_bytes = 0; // of its __DWARF sections: what a dump's memory grows with
  Module identity;          // MODULE/INFO fields: what the store files the dump under
};

// std::nullopt when the file is not Mach-O; an error when it is but cannot
// be read.
std::optional<llvm::Expected<std::vector<MachOSliceFile>>>
examineMachOFile(const std::string& path);

} // namespace dumpsyms
