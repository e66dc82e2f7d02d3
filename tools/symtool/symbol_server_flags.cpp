#include "tools/symtool/symbol_server_flags.h"

#include <cstdio>

namespace dumpsyms {

void addSymbolServerFlags(CLI::App* command, SymbolServerFlags& flags) {
  // Each in the --help group of its own.
  auto grouped = [](CLI::Option* option) { return option->group("Symbol servers"); };
  grouped(command->add_option("--symbols-url", flags.urls,
                              "a symbol server (repeatable, tried in order after the stores): "
                              "GET URL/<debug_file>/<debug_id>/<file>.sym, then the code-id form"));
  grouped(command->add_option(
      "--symbols-cache", flags.cache,
      "where fetched symbol files are kept (default: $XDG_CACHE_HOME/symtool/symbols)"));
  grouped(command->add_option("--symbols-miss-ttl", flags.miss_ttl,
                              "seconds a server's \"not found\" is remembered in the cache "
                              "(default: 3600; 0: not remembered)"));
  grouped(command->add_option("--symbols-retries", flags.retries,
                              "tries after the first, on connection errors, timeouts, 408, 429, "
                              "5xx (default: 3)"))
      ->check(CLI::Range(0, 20));
  grouped(command->add_option("--symbols-timeout", flags.timeout,
                              "seconds to connect, and that a transfer may stall (default: 30)"))
      ->check(CLI::Range(1, 86400));
}

std::shared_ptr<SymbolServers> makeSymbolServers(const SymbolServerFlags& flags) {
  if (flags.urls.empty())
    return nullptr;
  SymbolServerOptions options;
  options.urls = flags.urls;
  options.cache_dir = flags.cache;
  options.miss_ttl = std::chrono::seconds(flags.miss_ttl);
  options.retry.retries = flags.retries;
  options.timeout_seconds = flags.timeout;
  return std::make_shared<SymbolServers>(std::move(options), [](const std::string& line) {
    std::fprintf(stderr, "symtool: warning: %s\n", line.c_str());
  });
}

} // namespace dumpsyms
