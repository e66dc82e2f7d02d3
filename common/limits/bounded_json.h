// JSON parsed with its nesting bounded. LLVM 19's json::parse recurses once
// per level of arrays and objects, with no bound, and so does destroying the
// json::Value it builds: `[[[[...` 100000 levels deep exhausts the stack.
// Every JSON this project reads from outside goes through here.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/JSON.h>

namespace dumpsyms {

// How deep arrays and objects nest in `text` (0 for a scalar), counted
// without parsing it; strings (and their escapes) are skipped.
size_t jsonNestingDepth(llvm::StringRef text);

// llvm::json::parse, or an error when the nesting is over
// limits::kMaxJsonDepth.
llvm::Expected<llvm::json::Value> parseBoundedJson(llvm::StringRef text);

} // namespace dumpsyms
