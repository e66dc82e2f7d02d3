// The download side of `symstore serve`: every consumer's way of asking a
// store for a file, answered from the store backend.
//   Breakpad/Tecken  GET|HEAD /<debug_file>/<DEBUG_ID>/<name>.sym (and any
//                    file kept there); /<code_file>/<CODE_ID>/<x>.sym -> 302
//   debuginfod       /buildid/<BUILDID>/{debuginfo,executable,section/<name>}
//   Microsoft SSQP   /<pdb>/<GUIDAGE>/<pdb>, /<exe>/<TIMESTAMPSIZE>/<exe>
// Names and ids match without regard to case; gzip (compressed once, kept
// in the cache by ETag), ETag/Last-Modified with 304, single Ranges; a
// missing file is 404, never 403.
#pragma once

#include "server/http/http_server.h"
#include "store/backend/store_backend.h"

#include <string>
#include <vector>

namespace dumpsyms {

struct DownloadRoute;

class DownloadService {
public:
  // `cache_dir`: where gzip variants (and debuginfod sections) are kept.
  DownloadService(StoreBackend& store, std::string cache_dir);
  // Answers a GET or HEAD that is not an upload route; sets response.route.
  ServerResponse handle(const ServerRequest& request);

private:
  ServerResponse serveStoreFile(const ServerRequest& request,
                                const std::vector<std::string>& components);
  ServerResponse serveDebuginfod(const ServerRequest& request, const DownloadRoute& route);

  StoreBackend& store_;
  std::string cache_dir_;
};

} // namespace dumpsyms
