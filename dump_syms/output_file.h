// Writes a file all at once or not at all: the data goes to a temporary file
// beside the target, which is renamed over it only when complete.
#pragma once

#include <functional>
#include <llvm/Support/Error.h>
#include <ostream>
#include <string>

namespace dumpsyms {

llvm::Error writeFileAtomically(const std::string& path,
                                const std::function<void(std::ostream&)>& write);

} // namespace dumpsyms
