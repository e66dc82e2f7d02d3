// The first lines of a stored symbol file, read through the backend: what
// a code-id path's file says its module is (MODULE's debug file and id),
// to redirect a client to the module's debug-id path.
#pragma once

#include "store/backend/store_backend.h"

#include <optional>
#include <string>

namespace dumpsyms {

struct SymbolFileHeader {
  std::string debug_id;
  std::string debug_file;
};

// "MODULE os cpu ID name" as the first line of `text`; none otherwise.
std::optional<SymbolFileHeader> parseSymbolFileHeader(const std::string& text);

// The header of the store file at `relative` (its first 4 KiB read).
llvm::Expected<std::optional<SymbolFileHeader>> readSymbolFileHeader(StoreBackend& store,
                                                                     const std::string& relative);

} // namespace dumpsyms
