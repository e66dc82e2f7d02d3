// What a symbol store holds: every <name>/<ID>/<file>.sym, each checked
// against its own MODULE line, so that nothing misfiled is ever uploaded.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

struct StoredSymbolFile {
  std::string relative_path; // "<name>/<ID>/<file>.sym"
  std::string path;          // under the store root
  std::string os, cpu;       // from its MODULE line
  std::string debug_id;
  std::string debug_file;         // the module name (the store's first level)
  std::string code_id, code_file; // from its INFO CODE_ID line, if it has one
  uint64_t size = 0;
};

struct StoreListing {
  std::vector<StoredSymbolFile> files; // sorted by relative path
  std::vector<std::string> problems;   // one line each: a file misfiled or not a symbol file
};

// Lists `root`, skipping dot-files and dot-directories (temporaries, upload
// ledgers). An error only when the store cannot be read at all.
llvm::Expected<StoreListing> listStore(const std::string& root);

} // namespace dumpsyms
