// The pages of `symstore serve` (docs/PAGES.md): routes a page request to
// the libraries that answer it -- the store catalog, the module summaries
// (stats and coverage), the lookup index, the validator and the differ,
// the walker -- and hands their values to a printer in server/pages/.
//   GET  /                                  the store, the search (?q=, &page=)
//   GET  /ui/module/<debug_file>/<DEBUG_ID>  a module (?address= looks one up)
//   GET  /ui/check, POST /ui/check          a .sym checked, not stored
//   GET  /ui/walk,  POST /ui/walk           a dump walked with the store's symbols
//   GET  /ui/static/pages.css, pages.js
// Who may ask is the dispatcher's business (server/service/symbol_service.h), but
// for a form's own token field, which only the body carries.
#pragma once

#include "server/browse/module_summaries.h"
#include "server/http/http_server.h"
#include "server/pages/page_layout.h"
#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"
#include "store/supply/store_mirror.h"
#include "symbol_file/index/index_cache.h"
#include "symbol_file/lookup/address_lookup.h"

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace dumpsyms {

struct BrowseSettings {
  std::string store_name;      // shown in every page's header
  std::string store_directory; // the store's directory; "" for an S3 store
  std::string cache_dir;       // mirrored symbol files of an S3 store go under it
  uint64_t max_sym_bytes = 0;  // a checked .sym (each of the two)
  uint64_t max_dump_bytes = 0; // a walked dump
  IndexCacheOptions index;     // the lookup indexes' cache
  // Whether an upload page needs a token, and whether one (from the form's
  // own field) may upload. Unset: no tokens, every form is taken.
  std::function<bool(const std::string& token)> upload_token_allowed;
};

// Whether `method` `path` is a page's: the dispatcher sends it here.
bool isPageRequest(const std::string& method, const std::string& path);
// Whether it is a page that takes an upload (a POST of a form).
bool isPageUpload(const std::string& method, const std::string& path);

class BrowseService {
public:
  BrowseService(StoreBackend& store, StoreCatalog& catalog, BrowseSettings settings);

  // `token_accepted`: the request's header carried a token that may
  // upload, so a form's token field is not asked for.
  ServerResponse handle(ServerRequest& request, bool token_accepted);

private:
  ServerResponse home(const ServerRequest& request);
  ServerResponse moduleList(const ServerRequest& request);
  ServerResponse module(const ServerRequest& request, const std::string& rest);
  ServerResponse checkForm(int status, const std::string& error);
  ServerResponse check(ServerRequest& request, bool token_accepted);
  ServerResponse walkForm(int status, const std::string& error);
  ServerResponse walk(ServerRequest& request, bool token_accepted);
  // The form's token judged, when the server has tokens: a refusal, or none.
  std::optional<ServerResponse>
  refuseFormToken(const ServerRequest& request,
                  ServerResponse (BrowseService::*form)(int, const std::string&));
  ServerResponse page(int status, const std::string& title, PageTab tab, std::string body);
  ServerResponse message(int status, const std::string& title, const std::string& text);

  StoreBackend& store_;
  StoreCatalog& catalog_;
  BrowseSettings settings_;
  StoreMirror local_;
  ModuleSummaries summaries_;
  std::mutex upload_parse_mutex_; // one checked file parsed at a time
  std::mutex walk_mutex_;         // one dump walked at a time
};

} // namespace dumpsyms
