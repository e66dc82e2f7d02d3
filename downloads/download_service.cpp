#include "downloads/download_service.h"

namespace dumpsyms {

DownloadService::DownloadService(StoreBackend& store, std::string cache_dir)
    : store_(store), cache_dir_(std::move(cache_dir)) {}

ServerResponse DownloadService::handle(const ServerRequest& request) {
  (void)request;
  ServerResponse response = ServerResponse::text(501, "downloads are not served yet");
  response.route = "download";
  return response;
}

} // namespace dumpsyms
