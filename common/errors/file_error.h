// The error every tool's messages are made of: "FILE: what is wrong".
#pragma once

#include <llvm/ADT/Twine.h>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// An error that names the file, as every message of the tools does.
llvm::Error fileError(const std::string& path, const llvm::Twine& message);

// A reader's message about a file it was handed by a private path (a spool
// file, /proc/self/fd/N), naming the file as its owner knows it instead.
std::string renamedFile(std::string message, const std::string& path, const std::string& name);

} // namespace dumpsyms
