// Feeds an open symbol file to a SymbolTextParser a few MiB at a time, so
// that a file of any size is parsed without being held or mapped: lines
// that cross a read are carried over, and a line over the limit is
// skipped as it streams past (as the parser would skip it whole).
#pragma once

#include "symbol_file/text/text_reader.h"

#include <functional>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// Reads `fd` from its start to its end. `bytes` (optional) sees every read
// in order with its file offset; reads are whole kStreamChunk pieces but
// for the last one.
constexpr size_t kStreamChunk = size_t(4) << 20;
llvm::Error streamSymbolFile(int fd, const std::string& path, SymbolTextParser& parser,
                             const std::function<void(llvm::StringRef, uint64_t)>& bytes = nullptr);

// The open file `fd` into the model (readSymbolFile for a file too large
// to hold as text).
llvm::Expected<ParsedSymbolFile> readSymbolFileStream(int fd, const std::string& path);

// The whole model of the .sym at `path` (for what reads every record:
// stats, diff); an error when it cannot be read or holds no MODULE record.
llvm::Expected<ParsedSymbolFile> parseSymbolFile(const std::string& path);

} // namespace dumpsyms
