// The upload side of `symstore serve`: the protocols `symstore upload`
// speaks, answered. Every file is checked (server/ingest/upload_checks.h) before it
// is published through the store backend; nothing partial or unchecked is
// ever visible. The dispatcher (server/service/symbol_service.h) has already
// checked the token's `upload` permission when these are called.
#pragma once

#include "server/http/http_server.h"
#include "server/ingest/inflate_caps.h"
#include "store/backend/store_backend.h"

#include <atomic>
#include <optional>
#include <string>

namespace dumpsyms {

enum class UploadRoute {
  Tecken,        // POST /upload/ (multipart zip) -- or a Breakpad v1 form there
  BreakpadV1,    // POST /symupload (multipart form)
  V2CheckStatus, // GET  /v1/symbols/<debug_file>/<debug_id>:checkStatus
  V2Create,      // POST /v1/uploads:create
  V2Put,         // PUT  /v1/uploads/<key>  (the URL uploads:create handed out)
  V2Complete,    // POST /v1/uploads/<key>:complete
  Put,           // PUT  /<debug_file>/<DEBUG_ID>/<name>.sym
};

// The route of a request, from its method and decoded path alone; none
// for a request that is not an upload.
std::optional<UploadRoute> matchUploadRoute(const std::string& method, const std::string& path);
// "tecken", "breakpad-v1", "v2-check-status", ... (metrics and access log).
const char* uploadRouteName(UploadRoute route);

struct UploadCounters {
  std::atomic<uint64_t> files_published{0}, files_same{0}, refusals{0}, bytes_received{0};
};

struct UploadSettings {
  bool replace = false; // --replace: other bytes for an existing key replace them
  InflateCaps caps;     // zip and gzip bodies (common/limits/input_limits.h)
};

class UploadService {
public:
  UploadService(StoreBackend& store, UploadSettings settings, UploadCounters& counters);
  // Answers one upload request whose body has been received in full.
  ServerResponse handle(UploadRoute route, ServerRequest& request);

private:
  StoreBackend& store_;
  UploadSettings settings_;
  UploadCounters& counters_;
};

} // namespace dumpsyms
