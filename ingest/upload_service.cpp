#include "ingest/upload_service.h"

namespace dumpsyms {

std::optional<UploadRoute> matchUploadRoute(const std::string& method, const std::string& path) {
  (void)method;
  (void)path;
  return std::nullopt;
}

const char* uploadRouteName(UploadRoute route) {
  (void)route;
  return "upload";
}

UploadService::UploadService(StoreBackend& store, UploadSettings settings, UploadCounters& counters)
    : store_(store), settings_(settings), counters_(counters) {}

ServerResponse UploadService::handle(UploadRoute route, ServerRequest& request) {
  (void)route;
  (void)request;
  return ServerResponse::text(501, "uploads are not taken yet");
}

} // namespace dumpsyms
