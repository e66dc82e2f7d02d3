// The dispatcher of `symstore serve`: which route a request takes, whether
// its token may take it, and who answers it.
//   GET|HEAD /healthz                      "ok"
//   GET|HEAD /metrics                      ServerMetrics
//   a crash route (crashRouteOf), with --crashes:
//     POST /submit, /submit/report         open, unless a token has `submit`
//     the crash pages and API              a token with `crashes`; without
//                                          --tokens, loopback clients only
//                                          unless --crashes-public
//                                          -> CrashService
//   a page (isPageRequest)                 (--private: token with `download`)
//                                          -> BrowseService; a page's upload
//                                          (POST /ui/check, /ui/walk) takes
//                                          the `upload` token from a header
//                                          or from the form's token field
//   an upload route (matchUploadRoute)     token with `upload` -> UploadService
//   any other GET|HEAD                     (--private: token with `download`)
//                                          -> DownloadService
//   anything else                          405
// A request without a token is 401, one whose token is unknown or lacks the
// permission 403: that is only ever about tokens, never about a file (a
// missing file is the download service's 404).
#pragma once

#include "server/browse/browse_service.h"
#include "server/crashes/crash_service.h"
#include "server/downloads/download_service.h"
#include "server/http/http_server.h"
#include "server/ingest/upload_service.h"
#include "server/service/metrics.h"
#include "server/service/tokens.h"

#include <functional>
#include <optional>

namespace dumpsyms {

struct SymbolServiceSettings {
  bool private_downloads = false; // --private
  bool crashes_public = false;    // --crashes-public
};

class SymbolService {
public:
  // `published`: called after an upload was answered with success (the
  // pages' catalog reads the store again).
  SymbolService(const TokenSet& tokens, SymbolServiceSettings settings, DownloadService& downloads,
                UploadService& uploads, BrowseService& pages, ServerMetrics& metrics,
                std::function<void()> published = nullptr);

  // The crash inbox's routes are served (symstore serve --crashes).
  void serveCrashes(CrashService& crashes) { crashes_ = &crashes; }

  // From the headers alone: a refusal, sent without reading the body.
  std::optional<ServerResponse> admit(const ServerRequest& request);
  ServerResponse handle(ServerRequest& request);

private:
  // The refusal for a request that needs `permission`, if any.
  std::optional<ServerResponse> authorize(const ServerRequest& request, unsigned permission,
                                          const char* what, const std::string& route);

  const TokenSet& tokens_;
  SymbolServiceSettings settings_;
  DownloadService& downloads_;
  UploadService& uploads_;
  BrowseService& pages_;
  ServerMetrics& metrics_;
  std::function<void()> published_;
  CrashService* crashes_ = nullptr;
};

} // namespace dumpsyms
