// The local cache of symbol files fetched from servers: a symbol store
// (<debug_file>/<id>/<name>.sym, written atomically, so that any reader of
// a store can read it and parallel walks can share it), plus marks of what a
// server did not have, so that a miss is not asked again for a while.
#pragma once

#include "common/files/atomic_file.h"
#include "common/files/user_cache_dir.h"

#include <chrono>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

class SymbolCache {
public:
  SymbolCache(std::string root, std::chrono::seconds miss_ttl);

  const std::string& root() const { return root_; }
  // root/relative, and whether a symbol file is there.
  std::string path(const std::string& relative) const;
  bool has(const std::string& relative) const;

  // Did `server` answer "not found" for `relative` less than the miss
  // time-to-live ago? (A mark is an empty file beside where the symbol file
  // would be, named for the server; its time is when the miss happened.)
  bool missRemembered(const std::string& server, const std::string& relative) const;
  void rememberMiss(const std::string& server, const std::string& relative);

  // A temporary for `relative`, its directories made; commit() puts it in place.
  llvm::Expected<AtomicFile> begin(const std::string& relative);

  // The default cache: $XDG_CACHE_HOME/symtool/symbols, else
  // ~/.cache/symtool/symbols.
  static std::string defaultRoot();

private:
  std::string missMark(const std::string& server, const std::string& relative) const;
  std::string root_;
  std::chrono::seconds miss_ttl_;
};

} // namespace dumpsyms
