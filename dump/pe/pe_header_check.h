// Checks the structure of a PE file before LLVM's COFF reader sees it.
//
// LLVM's COFFObjectFile trusts section file offsets and data directories
// (it reads the export, import, debug and other tables while opening the
// file) and can read past the end of a truncated or corrupt file. Every
// offset and size it will follow is bounds-checked here first, so that bad
// input is one clear error instead of a crash.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

// Empty when the headers are sound; otherwise what is wrong. A directory
// that lies in a section whose bytes the file does not hold at all (a
// companion `objcopy --only-keep-debug` made keeps the headers and drops
// the code and data) is no problem: the file offset of its entry is added
// to `unbacked`, for the caller to clear before LLVM reads the headers.
std::string peHeaderProblem(llvm::StringRef bytes, std::vector<uint64_t>* unbacked = nullptr);

} // namespace dumpsyms
