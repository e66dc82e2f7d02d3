#include "server/downloads/symbol_file_header.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

// A MODULE line is short; a file without one in its first 4 KiB is not a
// symbol file (store/store_listing reads the same amount).
constexpr uint64_t kHeaderBytes = 4096;

} // namespace

std::optional<SymbolFileHeader> parseSymbolFileHeader(const std::string& text) {
  llvm::StringRef head(text);
  size_t end = head.find('\n');
  if (end == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef line = head.take_front(end).rtrim('\r');
  if (!line.consume_front("MODULE "))
    return std::nullopt;
  llvm::SmallVector<llvm::StringRef, 4> parts;
  line.split(parts, ' ', 3, false);
  if (parts.size() != 4 || parts[2].empty() || parts[3].empty())
    return std::nullopt;
  return SymbolFileHeader{parts[2].str(), parts[3].str()};
}

llvm::Expected<std::optional<SymbolFileHeader>> readSymbolFileHeader(StoreBackend& store,
                                                                     const std::string& relative) {
  llvm::Expected<std::string> head = store.readRange(relative, 0, kHeaderBytes);
  if (!head)
    return head.takeError();
  return parseSymbolFileHeader(*head);
}

} // namespace dumpsyms
