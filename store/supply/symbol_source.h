// Finds and opens the symbol file a lookup needs: a .sym given outright, or
// one module of a symbol store (by name, and by id when the store holds
// several builds of it), or -- given symbol servers and the module's name
// and debug id -- the servers' (through their cache) when the store lacks
// it. Lookups read the file's index (symbol_file/index/), built on first use.
#pragma once

#include "store/symbol_servers/symbol_servers.h"
#include "symbol_file/index/index_cache.h"
#include "symbol_file/lookup/address_lookup.h"
#include "symbol_file/text/text_reader.h"

#include <llvm/Support/Error.h>
#include <memory>
#include <string>

namespace dumpsyms {

struct SymbolSourceQuery {
  std::string path;   // a .sym file or a store directory; "" for servers only
  std::string module; // --module: required for a store
  std::string id;     // --id: required when the store has several ids of the module
  std::shared_ptr<SymbolServers> servers; // asked when the store lacks the module
  IndexCacheOptions index;
};

// The .sym the query names, fetched from the servers when the store lacks it.
llvm::Expected<std::string> findSymbolFile(const SymbolSourceQuery& query);

// The whole model of the .sym at `path`, parsed (for what reads every
// record: stats, diff).
llvm::Expected<ParsedSymbolFile> parseSymbolFile(const std::string& path);

struct LoadedSymbols {
  std::string path; // the .sym
  AddressLookup lookup;
  std::string index_source; // "beside", "cache" or "built"
  std::string note;         // about the index, for -v ("" when nothing to say)
};

// The lookup over the index of the .sym at `path`.
llvm::Expected<LoadedSymbols> openSymbols(const std::string& path, const IndexCacheOptions& index);

// findSymbolFile, then openSymbols.
llvm::Expected<LoadedSymbols> loadSymbols(const SymbolSourceQuery& query);

} // namespace dumpsyms
