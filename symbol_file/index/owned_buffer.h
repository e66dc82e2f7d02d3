// A MemoryBuffer that owns the std::string it views: an index built in
// memory is read through the same IndexFile as a mapped one, without a copy.
#pragma once

#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {

std::unique_ptr<llvm::MemoryBuffer> ownedBuffer(std::string bytes, llvm::StringRef name);

} // namespace dumpsyms
