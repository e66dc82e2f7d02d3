#include "store/symbol_servers/symbol_servers.h"

#include "common/http/http_answers.h"
#include "common/limits/input_limits.h"
#include "store/layout/layout.h"
#include "symbol_file/text/symbol_header.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <llvm/ADT/StringRef.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// A symbol file starts with its MODULE record; anything else a server
// answers 200 with (a login page, an error page of a proxy) is not one.
bool looksLikeSymbolFile(int fd) {
  char head[7] = {};
  return pread(fd, head, sizeof head, 0) == ssize_t(sizeof head) &&
         startsAsSymbolFile(llvm::StringRef(head, sizeof head));
}

} // namespace

std::vector<std::string> symbolKeyPaths(const SymbolKey& key) {
  std::vector<std::string> paths;
  auto usable = [](const std::string& name, const std::string& id) {
    return !name.empty() && !id.empty() && name.find('/') == std::string::npos && name != "." &&
           name != ".." && id.find('/') == std::string::npos && id != "." && id != "..";
  };
  // (a null debug id names no build: only the code id tells which)
  if (usable(key.debug_file, key.debug_id.str()) && !key.debug_id.isNull())
    paths.push_back(symbolFileRelativePath(key.debug_file, key.debug_id));
  if (usable(key.code_file, key.code_id.str())) {
    // As the dump writes it (Windows: "%08X%x", the size in lower case),
    // then in upper case, as symbol files and the stores' index write it.
    for (const std::string& id : {key.code_id.str(), key.code_id.key()}) {
      std::string code = key.code_file + "/" + id + "/" + key.code_file + ".sym";
      if (std::find(paths.begin(), paths.end(), code) == paths.end())
        paths.push_back(code);
    }
  }
  return paths;
}

SymbolServers::SymbolServers(SymbolServerOptions options,
                             std::function<void(const std::string&)> warn)
    : cache_(options.cache_dir.empty() ? SymbolCache::defaultRoot() : options.cache_dir,
             options.miss_ttl),
      options_(std::move(options)), warn_(std::move(warn)) {
  for (std::string url : options_.urls) {
    while (!url.empty() && url.back() == '/')
      url.pop_back();
    servers_.push_back({url, false});
  }
}

llvm::Expected<FetchedSymbols> SymbolServers::find(const SymbolKey& key,
                                                   std::vector<SymbolAttempt>* attempts) {
  auto tried = [&](std::string where, std::string answer) {
    if (attempts)
      attempts->push_back({std::move(where), std::move(answer)});
  };
  std::vector<std::string> paths = symbolKeyPaths(key);
  if (paths.empty())
    return notFetched("neither a debug id nor a code id to ask the symbol servers by");
  for (const std::string& relative : paths) {
    bool cached = cache_.has(relative);
    tried(cache_.path(relative), cached ? "found in the symbol cache" : "not in the symbol cache");
    if (cached)
      return FetchedSymbols{cache_.path(relative), "cache"};
  }
  std::vector<std::string> problems;
  for (Server& server : servers_) {
    if (server.failed) {
      tried(server.url, "not asked: it failed earlier in this run");
      continue;
    }
    for (const std::string& relative : paths) {
      std::string url = server.url + "/" + urlEncodePath(relative);
      if (cache_.missRemembered(server.url, relative)) {
        tried(url, "not asked: its miss is remembered in the symbol cache");
        continue;
      }
      std::string problem, outcome;
      Answer answer = fetch(server, relative, problem, outcome);
      tried(url, outcome);
      if (answer == Answer::Fetched)
        return FetchedSymbols{cache_.path(relative), url};
      if (answer == Answer::Failed) {
        if (!problem.empty())
          problems.push_back(problem);
        break; // the next server
      }
      cache_.rememberMiss(server.url, relative);
    }
  }
  std::string why = "not on the symbol servers";
  for (const std::string& problem : problems)
    why += "; " + problem;
  return notFetched(std::move(why));
}

SymbolServers::Answer SymbolServers::fetch(Server& server, const std::string& relative,
                                           std::string& problem, std::string& outcome) {
  auto file = cache_.begin(relative);
  if (!file) {
    problem = llvm::toString(file.takeError());
    outcome = "not asked: the symbol cache cannot take the file: " + problem;
    return Answer::Failed;
  }
  std::FILE* stream = fdopen(dup(file->fd()), "w+b");
  if (!stream) {
    problem = cache_.path(relative) + ": cannot write it: " + std::strerror(errno);
    outcome = "not asked: " + problem;
    return Answer::Failed;
  }
  HttpRequest request;
  request.url = server.url + "/" + urlEncodePath(relative);
  request.follow_redirects = true;
  request.download = stream;
  request.download_limit = limits::kMaxFetchedSymbolFile;
  request.timeout_seconds = options_.timeout_seconds;
  // No limit on a download's whole time but the stall timeout: a large
  // symbol file over a slow link takes long, and is still worth having.
  request.answer_seconds = 0xffffffffu;
  unsigned tries = 0;
  HttpResponse response = performWithRetries(request, options_.retry, &tries);
  std::fclose(stream);
  requests_ += tries;
  std::string status = "HTTP " + std::to_string(response.status);
  if (response.status == 404 || response.status == 410 || response.status == 403) {
    outcome = status + " (not there)";
    return Answer::NotThere; // S3 answers 403 for a missing key when listing is not allowed
  }
  if (response.status >= 200 && response.status <= 299) {
    if (!looksLikeSymbolFile(file->fd())) {
      problem = request.url + ": the server's answer is not a symbol file";
      outcome = status + ", but not a symbol file";
      warn_(problem);
      return Answer::NotThere;
    }
    if (llvm::Error error = file->commit()) {
      problem = llvm::toString(std::move(error));
      outcome = status + ", but the symbol cache cannot keep it: " + problem;
      return Answer::Failed;
    }
    outcome = "found (" + status + ")";
    return Answer::Fetched;
  }
  // Retries spent, or an answer that says the server cannot serve us: it
  // is not asked again in this run.
  server.failed = true;
  problem = describeFailure(server.url, response);
  if (tries > 1)
    problem += " (after " + std::to_string(tries) + " tries)";
  // The same words without the server's URL, which the attempt names.
  outcome = llvm::StringRef(problem).starts_with(server.url + ": ")
                ? problem.substr(server.url.size() + 2)
                : problem;
  outcome += ": not asked again in this run";
  warn_("symbol server " + problem + ": going on without it");
  return Answer::Failed;
}

} // namespace dumpsyms
