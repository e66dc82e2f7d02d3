// What `symtool validate` finds in a symbol file's text: the parser's
// problems (each by line), a file that does not start with MODULE, NUL
// bytes. One list, printed by the tool and shown by the check page.
#pragma once

#include <cstddef>
#include <llvm/ADT/StringRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct ValidationProblem {
  size_t line = 0; // 1-based; 0 when it is about the whole file
  std::string message;
};

std::vector<ValidationProblem> validateSymbolText(llvm::StringRef text);

} // namespace dumpsyms
