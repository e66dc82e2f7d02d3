// What the JSON printers (ours and rust-minidump's) share: a string, or
// null where it is empty (the file did not say).
#pragma once

#include <llvm/Support/JSON.h>
#include <string>

namespace dumpsyms {

inline llvm::json::Value orNull(const std::string& text) {
  return text.empty() ? llvm::json::Value(nullptr) : llvm::json::Value(text);
}

} // namespace dumpsyms
