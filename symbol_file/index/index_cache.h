// Where a symbol file's index comes from: beside the file (`<name>.sym.idx`,
// which `symstore add --index` writes), else the user's index cache
// (`--index-cache DIR`; default $XDG_CACHE_HOME/symtool/index), else it is
// built by parsing the .sym, and written to the cache for the next process.
// An index is used only when its stamp is the file's (size and time, or
// size and content hash) and its header and checksum table check out; a
// stale or damaged one is rebuilt, never trusted.
#pragma once

#include "symbol_file/index/index_file.h"
#include "symbol_file/index/sym_stamp.h"
#include "symbol_file/model/module.h"

#include <llvm/Support/Error.h>
#include <memory>
#include <string>

namespace dumpsyms {

struct IndexCacheOptions {
  // The cache directory; "" keeps no cache (each process parses the .sym
  // that has no index beside it).
  std::string directory = defaultDirectory();

  static std::string defaultDirectory();
};

struct OpenedIndex {
  std::unique_ptr<IndexFile> index;
  // Where it came from: "beside", "cache" or "built".
  std::string source;
  // Why an index found was not used, or the cache could not be written
  // ("" when nothing went wrong): for -v.
  std::string note;
};

// The index of the symbol file at `sym_path`: found or built as above. An
// error names the file when it cannot be read or is no symbol file.
llvm::Expected<OpenedIndex> openSymbolIndex(const std::string& sym_path,
                                            const IndexCacheOptions& options);

// Built from the text whatever is found, and written to the cache: for an
// index that turned out damaged while it was read.
llvm::Expected<OpenedIndex> rebuildSymbolIndex(const std::string& sym_path,
                                               const IndexCacheOptions& options);

// Parses `sym_path` and writes its index beside it (symstore add --index).
llvm::Error writeIndexBeside(const std::string& sym_path);

// The same unless a usable index of the file is there already; whether it
// wrote one (symtool index).
llvm::Expected<bool> updateIndexBeside(const std::string& sym_path);

} // namespace dumpsyms
