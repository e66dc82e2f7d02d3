// The head of a stored symbol file, read through the backend with the one
// MODULE/INFO reader (symbol_file/text/symbol_header.h): what a code-id
// path's file says its module is, to redirect a client to the module's
// debug-id path.
#pragma once

#include "store/backend/store_backend.h"
#include "symbol_file/text/symbol_header.h"

#include <optional>
#include <string>

namespace dumpsyms {

// The header of the store file at `relative` (its first
// limits::kSymbolHeaderBytes read); none when it is no symbol file.
llvm::Expected<std::optional<SymbolFileHeader>> readStoredSymbolHeader(StoreBackend& store,
                                                                       const std::string& relative);

} // namespace dumpsyms
