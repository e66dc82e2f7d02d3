// A zip archive built in memory (libzip), for servers that take symbol
// files in bulk (Tecken).
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

// Entries (name, bytes), deflated, in the order given.
llvm::Expected<std::string>
buildZipArchive(const std::vector<std::pair<std::string, llvm::StringRef>>& entries);

} // namespace dumpsyms
