// What a symbol store holds: every <name>/<ID>/<file>.sym, each checked
// against its own MODULE line, so that nothing misfiled is ever uploaded;
// and what `symstore add --keep-binaries` kept beside them (store/layout/layout.h):
// the binaries and debug files, and the .build-id entries naming them.
#pragma once

#include "symbol_file/text/symbol_header.h"

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

// What a listed file is; the kept ones and the entries have only
// relative_path, path and size set.
enum class StoredKind { Symbols, KeptBinary, BuildIdEntry };

// A symbol file's header (MODULE and INFO CODE_ID: the debug file is the
// store's first level), where it is, and how large.
struct StoredSymbolFile : SymbolFileHeader {
  StoredKind kind = StoredKind::Symbols;
  std::string relative_path; // "<name>/<ID>/<file>.sym"
  std::string path;          // under the store root
  uint64_t size = 0;
};

struct StoreListing {
  std::vector<StoredSymbolFile> files; // sorted by relative path
  // Each in a <name>/<ID>/ directory that holds a symbol file (or, for a
  // PE at its SSQP path, the code-id link to one), sorted.
  std::vector<StoredSymbolFile> kept_files;
  // .build-id/<xx>/<rest>, each parsed and naming only kept files, sorted.
  std::vector<StoredSymbolFile> build_id_entries;
  std::vector<std::string> problems; // one line each: a file misfiled or not a symbol file
};

// Lists `root`, skipping dot-files and dot-directories (temporaries, upload
// ledgers) but the top-level .build-id index. An error only when the store cannot be read at all.
llvm::Expected<StoreListing> listStore(const std::string& root);

} // namespace dumpsyms
