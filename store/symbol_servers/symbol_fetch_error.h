// Why a symbol file was not fetched from the symbol servers or the stores
// of a symbol path: the store wing's error, which says where the file was
// looked for ("not on the symbol servers; https://...: HTTP 500").
#pragma once

#include <llvm/Support/Error.h>
#include <llvm/Support/raw_ostream.h>
#include <string>

namespace dumpsyms {

class SymbolFetchError : public llvm::ErrorInfo<SymbolFetchError> {
public:
  static char ID;

  explicit SymbolFetchError(std::string where) : where_(std::move(where)) {}
  const std::string& where() const { return where_; }
  void log(llvm::raw_ostream& out) const override { out << where_; }
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }

private:
  std::string where_;
};

inline llvm::Error notFetched(std::string where) {
  return llvm::make_error<SymbolFetchError>(std::move(where));
}

} // namespace dumpsyms
