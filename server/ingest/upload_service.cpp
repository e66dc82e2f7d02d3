#include "server/ingest/upload_service.h"

#include "server/ingest/upload_handlers.h"
#include "store/protocols/breakpad_v1.h"
#include "store/protocols/sym_upload_v2.h"
#include "store/protocols/tecken.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

namespace {

// Breakpad's clients append "/v1/..." to the URL they were given, so a URL
// ending in '/' asks for "//v1/...": the protocols' own paths are matched
// without the extra slashes (a store path never is: "//x" is absolute).
std::string protocolPath(const std::string& path) {
  size_t slashes = path.find_first_not_of('/');
  return slashes == std::string::npos || slashes <= 1 ? path : path.substr(slashes - 1);
}

std::optional<UploadRoute> matchProtocolRoute(const std::string& method, const std::string& path) {
  if (method == "POST") {
    if (path == tecken::kUploadPath)
      return UploadRoute::Tecken; // or Breakpad v1's form: told apart by its fields
    if (breakpad_v1::isUploadPath(path))
      return UploadRoute::BreakpadV1;
    if (sym_upload_v2::isCreatePath(path))
      return UploadRoute::V2Create;
    if (sym_upload_v2::matchCompletePath(path))
      return UploadRoute::V2Complete;
    return std::nullopt;
  }
  if (method == "GET" && sym_upload_v2::matchCheckStatusPath(path))
    return UploadRoute::V2CheckStatus;
  if (method == "PUT" && sym_upload_v2::matchUploadPath(path))
    return UploadRoute::V2Put;
  return std::nullopt;
}

} // namespace

std::optional<UploadRoute> matchUploadRoute(const std::string& method, const std::string& path) {
  if (auto route = matchProtocolRoute(method, protocolPath(path)))
    return route;
  if (method == "PUT")
    return UploadRoute::Put;
  return std::nullopt;
}

const char* uploadRouteName(UploadRoute route) {
  switch (route) {
  case UploadRoute::Tecken:
    return "tecken";
  case UploadRoute::BreakpadV1:
    return "breakpad-v1";
  case UploadRoute::V2CheckStatus:
    return "v2-check-status";
  case UploadRoute::V2Create:
    return "v2-create";
  case UploadRoute::V2Put:
    return "v2-put";
  case UploadRoute::V2Complete:
    return "v2-complete";
  case UploadRoute::Put:
    return "put";
  }
  return "upload";
}

UploadService::UploadService(StoreBackend& store, UploadSettings settings, UploadCounters& counters)
    : store_(store), settings_(settings), counters_(counters) {}

ServerResponse UploadService::handle(UploadRoute route, ServerRequest& request) {
  uint64_t received = request.body_size;
  for (const auto& [name, field] : request.form)
    received += field.size ? field.size : field.value.size();
  counters_.bytes_received += received;
  SymbolPublisher publisher(store_, settings_, counters_);
  if (route != UploadRoute::Put)
    request.path = protocolPath(request.path);
  switch (route) {
  case UploadRoute::Tecken:
    if (request.form.count(breakpad_v1::kSymbolFileField))
      return handleBreakpadV1(publisher, request);
    return handleTecken(publisher, request);
  case UploadRoute::BreakpadV1:
    return handleBreakpadV1(publisher, request);
  case UploadRoute::V2CheckStatus:
    return handleV2CheckStatus(publisher, request);
  case UploadRoute::V2Create:
    return handleV2Create(publisher, request);
  case UploadRoute::V2Put:
    return handleV2Put(publisher, request);
  case UploadRoute::V2Complete:
    return handleV2Complete(publisher, request);
  case UploadRoute::Put:
    return handleStorePut(publisher, request);
  }
  return publisher.refuse({404, "not an upload"});
}

} // namespace dumpsyms
