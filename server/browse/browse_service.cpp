#include "server/browse/browse_service.h"

#include "server/browse/page_requests.h"
#include "server/pages/check_page.h"
#include "server/pages/home_page.h"
#include "server/pages/html.h"
#include "server/pages/module_list_page.h"
#include "server/pages/module_page.h"
#include "server/pages/page_layout.h"
#include "server/pages/walk_page.h"
#include "store/supply/symbol_supplier.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

constexpr const char* kModulePrefix = "/ui/module/";

bool isRead(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

ServerResponse staticFile(std::string_view body, const char* type) {
  ServerResponse response;
  response.body = std::string(body);
  response.headers.push_back({"Content-Type", type});
  response.headers.push_back({"Cache-Control", "public, max-age=3600"});
  response.headers.push_back({"X-Content-Type-Options", "nosniff"});
  response.route = "pages";
  return response;
}

} // namespace

bool isPageRequest(const std::string& method, const std::string& path) {
  if (isPageUpload(method, path))
    return true;
  return isRead(method) && (path == "/" || path.rfind("/ui/", 0) == 0 || path == "/ui");
}

bool isPageUpload(const std::string& method, const std::string& path) {
  return method == "POST" && (path == "/ui/check" || path == "/ui/walk");
}

BrowseService::BrowseService(StoreBackend& store, StoreCatalog& catalog, BrowseSettings settings)
    : store_(store), catalog_(catalog), settings_(std::move(settings)),
      local_(store, settings_.store_directory, settings_.cache_dir + "/pages-mirror") {}

ServerResponse BrowseService::page(int status, const std::string& title, PageTab tab,
                                   std::string body) {
  ServerResponse response;
  response.status = status;
  response.body = renderPage({title, tab, settings_.store_name}, body);
  response.headers = pageHeaders();
  response.route = "pages";
  return response;
}

ServerResponse BrowseService::message(int status, const std::string& title,
                                      const std::string& text) {
  return page(status, title, PageTab::None,
              fmt::format("<h1>{}</h1><p class=\"error\">{}</p><p><a href=\"/\">Search the store"
                          "</a></p>",
                          escapeHtml(title), escapeHtml(text)));
}

ServerResponse BrowseService::handle(ServerRequest& request, bool token_accepted) {
  const std::string& path = request.path;
  if (path == "/")
    return home(request);
  if (path == kStylePath)
    return staticFile(pageStylesheet(), "text/css; charset=utf-8");
  if (path == kScriptPath)
    return staticFile(pageScript(), "text/javascript; charset=utf-8");
  if (path == "/ui/modules")
    return moduleList(request);
  if (path.rfind(kModulePrefix, 0) == 0)
    return module(request, path.substr(std::string_view(kModulePrefix).size()));
  if (path == "/ui/check")
    return request.method == "POST" ? check(request, token_accepted) : checkForm(200, "");
  if (path == "/ui/walk")
    return request.method == "POST" ? walk(request, token_accepted) : walkForm(200, "");
  return message(404, "Not found", "There is no page at " + path + ".");
}

ServerResponse BrowseService::home(const ServerRequest& request) {
  auto catalog = catalog_.snapshot();
  if (!catalog)
    return message(503, "The store cannot be read", llvm::toString(catalog.takeError()));
  CatalogSummary summary = (*catalog)->summary();
  HomePageInput input;
  input.summary = &summary;
  input.problems = (*catalog)->problems().size();
  auto q = request.query.find("q");
  if (q != request.query.end())
    input.query = trimmedQuery(q->second);
  if (!input.query.empty()) {
    CatalogQuery query;
    query.text = input.query;
    auto page_argument = request.query.find("page");
    if (page_argument != request.query.end())
      query.page = pageNumber(page_argument->second);
    input.results = (*catalog)->search(query);
  }
  return page(200, input.query.empty() ? "Symbol store" : input.query + " \xE2\x80\x94 search",
              PageTab::Store, renderHomePage(input));
}

ServerResponse BrowseService::moduleList(const ServerRequest& request) {
  auto catalog = catalog_.snapshot();
  if (!catalog)
    return message(503, "The store cannot be read", llvm::toString(catalog.takeError()));
  auto letter = request.query.find("letter");
  auto page_argument = request.query.find("page");
  CatalogModuleList list = (*catalog)->moduleList(
      letter == request.query.end() ? "" : letter->second,
      page_argument == request.query.end() ? 1 : pageNumber(page_argument->second));
  return page(200, list.letter.empty() ? "Modules" : "Modules: " + list.letter, PageTab::Store,
              renderModuleListPage(list));
}

ServerResponse BrowseService::module(const ServerRequest& request, const std::string& rest) {
  size_t slash = rest.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == rest.size())
    return message(404, "Not found", "A module page is /ui/module/<debug_file>/<DEBUG_ID>.");
  std::string debug_file = rest.substr(0, slash);
  DebugId debug_id(rest.substr(slash + 1));
  auto catalog = catalog_.snapshot();
  if (!catalog)
    return message(503, "The store cannot be read", llvm::toString(catalog.takeError()));
  const CatalogEntry* entry = (*catalog)->find(debug_file, debug_id);
  if (!entry)
    return message(404, "No such module",
                   "The store has no symbols of " + debug_file + " with the id " + debug_id.str() +
                       ".");
  auto summary = summaries_.get(entry->relative_path + "\n" + entry->etag,
                                [&] { return local_.text(*entry); });
  if (!summary)
    return message(500, "The symbol file cannot be read", llvm::toString(summary.takeError()));

  ModulePageInput input;
  input.summary = summary->get();
  input.entry = entry;
  input.versions = (*catalog)->versions(entry->debug_file);
  auto address = request.query.find("address");
  if (address != request.query.end() && !trimmedQuery(address->second).empty()) {
    LookupAnswer answer = parseLookupAddress(address->second);
    if (answer.address) {
      SymbolSupplier supplier({}, nullptr, settings_.index);
      auto local = local_.path(*entry);
      auto loaded =
          local ? supplier.open(*local) : llvm::Expected<const ModuleSymbols*>(local.takeError());
      if (loaded)
        answer.info = (*loaded)->lookup.lookup(*answer.address);
      else
        answer = {answer.asked, std::nullopt, {}, llvm::toString(loaded.takeError())};
    }
    input.lookup = std::move(answer);
  }
  return page(200, summary->get()->debug_file + " " + summary->get()->debug_id.str(),
              PageTab::Store, renderModulePage(input));
}

std::optional<ServerResponse>
BrowseService::refuseFormToken(const ServerRequest& request,
                               ServerResponse (BrowseService::*form)(int, const std::string&)) {
  if (!settings_.upload_token_allowed)
    return std::nullopt;
  auto field = request.form.find("token");
  if (field == request.form.end() || field->second.value.empty()) {
    ServerResponse refusal = (this->*form)(401, "This server needs the upload token: paste it "
                                                "in the token field.");
    refusal.headers.push_back({"WWW-Authenticate", "Bearer"});
    return refusal;
  }
  if (!settings_.upload_token_allowed(field->second.value))
    return (this->*form)(403, "The token is not known here, or may not upload.");
  return std::nullopt;
}

ServerResponse BrowseService::checkForm(int status, const std::string& error) {
  return page(status, "Check symbols", PageTab::Check,
              renderCheckForm(static_cast<bool>(settings_.upload_token_allowed), error,
                              settings_.max_sym_bytes));
}

ServerResponse BrowseService::walkForm(int status, const std::string& error) {
  return page(status, "Walk a crash", PageTab::Walk,
              renderWalkForm(static_cast<bool>(settings_.upload_token_allowed), error,
                             settings_.max_dump_bytes));
}

} // namespace dumpsyms
