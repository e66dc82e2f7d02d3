// The flags that add symbol servers to a symtool command (stackwalk,
// symbolize, lookup), and the servers they make.
#pragma once

#include "store/symbol_servers/symbol_servers.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymbolServerFlags {
  std::vector<std::string> urls;
  std::string cache;
  unsigned miss_ttl = 3600;
  unsigned retries = 3;
  unsigned timeout = 30;
  bool verbose = false; // say where each fetched file came from
};

void addSymbolServerFlags(CLI::App* command, SymbolServerFlags& flags);

// None when no URL was given. Failing servers are reported on stderr.
std::shared_ptr<SymbolServers> makeSymbolServers(const SymbolServerFlags& flags);

} // namespace dumpsyms
