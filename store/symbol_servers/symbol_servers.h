// Symbol files from HTTP symbol servers, tried in the order given: GET
// URL/<debug_file>/<debug_id>/<sym_file> (Tecken, Google's and Mozilla's
// servers, rust-minidump), and when that is not found the code-id form
// URL/<code_file>/<code_id>/<code_file>.sym (servers answer it with a
// redirect to the first form). What is fetched goes into the cache and is
// read from there; misses are remembered there for a while. Requests are
// retried by common/http/'s policy; a server that still fails is reported
// once and not asked again in this run, and the caller goes on without it.
#pragma once

#include "common/http/retry_policy.h"
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "store/symbol_servers/symbol_attempt.h"
#include "store/symbol_servers/symbol_cache.h"
#include "store/symbol_servers/symbol_fetch_error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// What a module is known by. Either pair may be empty.
struct SymbolKey {
  std::string debug_file; // the debug file's name (no directories)
  DebugId debug_id;
  std::string code_file; // the code file's name (no directories)
  CodeId code_id;
};

// The store-relative paths a key is looked up under, the debug-id form
// first: "<debug_file>/<debug_id>/<name>.sym", "<code_file>/<code_id>/<code_file>.sym".
std::vector<std::string> symbolKeyPaths(const SymbolKey& key);

struct SymbolServerOptions {
  std::vector<std::string> urls;
  std::string cache_dir;               // "": SymbolCache::defaultRoot()
  std::chrono::seconds miss_ttl{3600}; // 0: misses are not remembered
  RetryPolicy retry;                   // upload's policy
  unsigned timeout_seconds = 30;       // connect, and the longest a transfer may stall
};

struct FetchedSymbols {
  std::string path;   // the .sym in the cache
  std::string source; // the URL it came from, or "cache"
};

class SymbolServers {
public:
  // `warn` receives one line per server that fails (and one per file a
  // server sends that is not a symbol file).
  SymbolServers(SymbolServerOptions options, std::function<void(const std::string&)> warn);

  // The cached or fetched symbol file of `key`, or a SymbolFetchError
  // saying why not.
  // `attempts`, when given, receives every cache path and URL tried, in
  // order, with what each answered.
  llvm::Expected<FetchedSymbols> find(const SymbolKey& key,
                                      std::vector<SymbolAttempt>* attempts = nullptr);

  const SymbolCache& cache() const { return cache_; }
  // Requests sent so far (retries included), for -v and the tests.
  unsigned requests() const { return requests_; }

private:
  struct Server {
    std::string url; // without a trailing '/'
    bool failed = false;
  };
  enum class Answer { Fetched, NotThere, Failed };
  // `outcome`: what the server answered, for the attempt's record.
  Answer fetch(Server& server, const std::string& relative, std::string& problem,
               std::string& outcome);

  std::vector<Server> servers_;
  SymbolCache cache_;
  SymbolServerOptions options_;
  std::function<void(const std::string&)> warn_;
  unsigned requests_ = 0;
};

} // namespace dumpsyms
