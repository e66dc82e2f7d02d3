// PDBs and PEs from Windows symbol stores and servers (Microsoft's, a
// company's own `symstore` share, anything laid out as one), found through
// the sources of an `_NT_SYMBOL_PATH` or --symbol-server (windows_symbol_path.h):
// `<name>/<key>/<name>`, else its compressed form `<name>/<key>/<nam_>` (a
// cabinet, expanded here), else a `<name>/<key>/file.ptr` redirect. What a
// server gives is kept in its nearest downstream store, in the same layout,
// written atomically; the stores are looked in before the server. Requests
// go through common/http/'s HTTP client and retry policy; a server that
// fails is reported once and not asked again in this run.
#pragma once

#include "common/http/retry_policy.h"
#include "store/symbol_servers/symbol_fetch_error.h"
#include "store/symbol_servers/windows_symbol_path.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// What a file is filed under: "app.pdb" and the GUID and age, or "app.dll"
// and the TimeDateStamp and SizeOfImage.
struct WindowsFileKey {
  std::string name;
  std::string key;
};

struct WindowsSymbolFetchOptions {
  std::vector<WindowsSymbolSource> sources;
  RetryPolicy retry;
  unsigned timeout_seconds = 30;
};

class WindowsSymbolFetcher {
public:
  // `warn`: one line per server that fails, and per answer that is not
  // the file (a cabinet that does not expand, a file.ptr that says why not).
  WindowsSymbolFetcher(WindowsSymbolFetchOptions options,
                       std::function<void(const std::string&)> warn);

  // A local path of the file, or a SymbolFetchError saying where it was
  // looked for. `wanted` says whether a candidate is the file (its GUID and
  // age, its headers); a candidate it refuses is passed over.
  llvm::Expected<std::string> find(const WindowsFileKey& file,
                                   const std::function<bool(const std::string&)>& wanted);

  bool empty() const { return options_.sources.empty(); }
  // HTTP requests sent so far (retries included), for -v and the tests.
  unsigned requests() const { return requests_; }

private:
  enum class Answer { Found, NotThere, Failed };
  Answer fromDirectory(const std::string& dir, const std::string& cache, const WindowsFileKey& file,
                       const std::function<bool(const std::string&)>& wanted, std::string& found,
                       std::string& problem);
  Answer fromServer(size_t source, const std::string& cache, const WindowsFileKey& file,
                    const std::function<bool(const std::string&)>& wanted, std::string& found,
                    std::string& problem);
  Answer download(size_t source, const std::string& url, const std::string& to,
                  std::string* small_body, std::string& problem);

  WindowsSymbolFetchOptions options_;
  std::vector<bool> failed_; // per source
  std::function<void(const std::string&)> warn_;
  unsigned requests_ = 0;
};

} // namespace dumpsyms
