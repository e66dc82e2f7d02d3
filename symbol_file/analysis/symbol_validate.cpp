#include "symbol_file/analysis/symbol_validate.h"

#include "symbol_file/text/symbol_header.h"
#include "symbol_file/text/text_reader.h"

namespace dumpsyms {

std::vector<ValidationProblem> validateSymbolText(llvm::StringRef text) {
  std::vector<ValidationProblem> problems;
  for (SymbolFileProblem& problem : readSymbolFile(text).problems)
    problems.push_back({problem.line, std::move(problem.message)});
  // The parser reads records wherever they are; the processor wants the
  // MODULE record first, and refuses a file holding NUL bytes as corrupt.
  if (!startsAsSymbolFile(text))
    problems.push_back({1, "the file does not start with a MODULE record"});
  if (text.contains(llvm::StringRef("\0", 1)))
    problems.push_back({0, "the file holds NUL bytes (the processor marks it corrupt)"});
  return problems;
}

} // namespace dumpsyms
