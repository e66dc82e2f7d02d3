// JSON values as text: compact (what a server answers, what a child
// process reports) and as one line of a file (--json output, one document
// a line).
#pragma once

#include <cstdio>
#include <llvm/Support/JSON.h>
#include <string>

namespace dumpsyms {

std::string jsonText(const llvm::json::Value& value);

// The value, compact, and a newline.
void printJsonLine(std::FILE* out, const llvm::json::Value& value);

} // namespace dumpsyms
