// Finds and reads the symbol file a lookup needs: a .sym given outright, or
// one module of a symbol store (by name, and by id when the store holds
// several builds of it), or -- given symbol servers and the module's name
// and debug id -- the servers' (through their cache) when the store lacks it.
#pragma once

#include "symbol_server/symbol_servers.h"
#include "symbol_writer/text_reader.h"

#include <llvm/Support/Error.h>
#include <memory>
#include <string>

namespace dumpsyms {

struct SymbolSourceQuery {
  std::string path;   // a .sym file or a store directory; "" for servers only
  std::string module; // --module: required for a store
  std::string id;     // --id: required when the store has several ids of the module
  std::shared_ptr<SymbolServers> servers; // asked when the store lacks the module
};

struct LoadedSymbols {
  std::string path; // the .sym read
  ParsedSymbolFile parsed;
};

llvm::Expected<LoadedSymbols> loadSymbols(const SymbolSourceQuery& query);

} // namespace dumpsyms
