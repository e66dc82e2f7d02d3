#include "server/downloads/symbol_file_header.h"

#include "common/limits/input_limits.h"

namespace dumpsyms {

llvm::Expected<std::optional<SymbolFileHeader>>
readStoredSymbolHeader(StoreBackend& store, const std::string& relative) {
  llvm::Expected<std::string> head = store.readRange(relative, 0, limits::kSymbolHeaderBytes);
  if (!head)
    return head.takeError();
  llvm::Expected<SymbolFileHeader> header = parseSymbolFileHeader(*head);
  if (!header) {
    llvm::consumeError(header.takeError()); // no symbol file: nothing to redirect to
    return std::nullopt;
  }
  return std::move(*header);
}

} // namespace dumpsyms
