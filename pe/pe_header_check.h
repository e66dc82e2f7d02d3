// Checks the structure of a PE file before LLVM's COFF reader sees it.
//
// LLVM's COFFObjectFile trusts section file offsets and data directories
// (it reads the export, import, debug and other tables while opening the
// file) and can read past the end of a truncated or corrupt file. Every
// offset and size it will follow is bounds-checked here first, so that bad
// input is one clear error instead of a crash.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

// Empty when the headers are sound; otherwise what is wrong.
std::string peHeaderProblem(llvm::StringRef bytes);

} // namespace dumpsyms
