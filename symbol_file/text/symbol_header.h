// The head of a Breakpad symbol file: its MODULE record and the INFO
// records after it, read from the file's first bytes alone (what a store
// listing, the catalog, the code-id redirect and a symbol-server download
// need without parsing the whole file). Every reader of a MODULE line
// outside the full parser (text_reader.h) reads it here.
//
// The bytes may come from anyone who could upload, so nothing is trusted:
// a MODULE line with control bytes is refused, INFO lines with them are
// dropped, and only so many INFO lines, of so many bytes, are kept
// (common/limits/input_limits.h).
#pragma once

#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "symbol_file/model/module.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymbolFileHeader {
  std::string os, cpu;
  DebugId debug_id;
  std::string debug_file; // MODULE's name, the debug file; may hold spaces
  // The first INFO CODE_ID's id and file ("" without one).
  CodeId code_id;
  std::string code_file;
  // The other INFO lines, "KEY value", in file order.
  std::vector<std::string> info;
};

// Why a file's head is no symbol file's: the symbol-file wing's error.
class SymbolHeaderError : public llvm::ErrorInfo<SymbolHeaderError> {
public:
  enum class Problem {
    NoModuleLine,         // the file does not start with one
    IncompleteModuleLine, // without os, cpu, id and name
    ControlBytes,         // in the MODULE line
  };
  static char ID;

  explicit SymbolHeaderError(Problem problem) : problem_(problem) {}
  Problem problem() const { return problem_; }
  // "does not start with a MODULE line", ...: a file's name goes first.
  void log(llvm::raw_ostream& out) const override;
  std::error_code convertToErrorCode() const override;

private:
  Problem problem_;
};

// The header `module` would be written with.
SymbolFileHeader headerOf(const Module& module);

// Whether `bytes` begin as a symbol file does: with a MODULE record (a
// server's error page answered with 200 does not).
bool startsAsSymbolFile(llvm::StringRef bytes);

// The header in `head`: a file's first limits::kSymbolHeaderBytes bytes, or
// all of it when shorter. A last line without '\n' counts only then (the
// whole file); otherwise the read may have cut it.
llvm::Expected<SymbolFileHeader> parseSymbolFileHeader(llvm::StringRef head);

// The header of the file at `path`: a file error when it cannot be read,
// else what parseSymbolFileHeader says.
llvm::Expected<SymbolFileHeader> readSymbolFileHeader(const std::string& path);

} // namespace dumpsyms
