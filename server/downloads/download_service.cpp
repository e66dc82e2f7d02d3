#include "server/downloads/download_service.h"

#include "server/downloads/code_id_redirect.h"
#include "server/downloads/debuginfod_files.h"
#include "server/downloads/download_routes.h"
#include "server/downloads/entity_response.h"
#include "server/downloads/store_file_lookup.h"
#include "store/layout/layout.h"

#include <llvm/ADT/StringRef.h>
#include <unistd.h>
#include <utility>

namespace dumpsyms {
namespace {

ServerResponse notFound(const std::string& route) {
  // Never 403: Microsoft's symbol client stops asking a server that said it.
  ServerResponse response = ServerResponse::text(404, "no such file in the store");
  response.route = route;
  return response;
}

// A store that cannot be read is the server's problem, not the client's:
// the details go to the log, the client gets one line.
ServerResponse storeFailure(const std::string& route, llvm::Error error) {
  std::string line = "symstore serve: error: " + llvm::toString(std::move(error)) + "\n";
  ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
  (void)written;
  ServerResponse response = ServerResponse::text(500, "the store could not be read");
  response.route = route;
  return response;
}

// An opened store file, closed unless handed on.
class OpenedFile {
public:
  OpenedFile() = default;
  OpenedFile(const OpenedFile&) = delete;
  OpenedFile& operator=(const OpenedFile&) = delete;
  ~OpenedFile() {
    if (object_.fd >= 0)
      ::close(object_.fd);
  }
  void reset(OpenedObject object) {
    if (object_.fd >= 0)
      ::close(object_.fd);
    object_ = std::move(object);
  }
  bool valid() const { return object_.fd >= 0; }
  const OpenedObject& object() const { return object_; }
  int release() { return std::exchange(object_.fd, -1); }

private:
  OpenedObject object_;
};

} // namespace

DownloadService::DownloadService(StoreBackend& store, std::string cache_dir)
    : store_(store), cache_dir_(std::move(cache_dir)) {}

ServerResponse DownloadService::handle(const ServerRequest& request) {
  DownloadRoute route = parseDownloadRoute(request.path);
  switch (route.kind) {
  case DownloadRoute::Kind::StoreFile:
    return serveStoreFile(request, route.components);
  case DownloadRoute::Kind::Debuginfod:
    return serveDebuginfod(request, route);
  case DownloadRoute::Kind::NotARoute:
    break;
  }
  return notFound("download");
}

ServerResponse DownloadService::serveStoreFile(const ServerRequest& request,
                                               const std::vector<std::string>& components) {
  bool symbols = llvm::StringRef(components[2]).ends_with_insensitive(".sym");
  // A .sym is Breakpad's (and Tecken's) download; any other file under a
  // key is a kept binary, which Microsoft's clients (SSQP) ask for.
  std::string route = symbols ? "breakpad" : "ssqp";

  // Most requests name a file as the store spells it: opened at once (a
  // directory store resolves the path once). A conditional request is
  // answered from the stat first, so that a 304 opens nothing.
  OpenedFile opened;
  std::optional<FoundStoreFile> found;
  std::string asked = components[0] + "/" + components[1] + "/" + components[2];
  bool conditional =
      !request.header("if-none-match").empty() || !request.header("if-modified-since").empty();
  if (!conditional && isSafeRelativePath(asked)) {
    llvm::Expected<std::optional<OpenedObject>> direct = store_.openIfPresent(asked);
    if (!direct)
      return storeFailure(route, direct.takeError());
    if (*direct) {
      found = FoundStoreFile{asked, (*direct)->info};
      opened.reset(std::move(**direct));
    }
  }
  if (!found) {
    // SSQP clients lower-case the module name too; Breakpad's send it as
    // the module has it, and their misses must not list the whole store.
    llvm::Expected<std::optional<FoundStoreFile>> looked_up =
        findStoreFile(store_, components, /*module_any_case=*/!symbols);
    if (!looked_up)
      return storeFailure(route, looked_up.takeError());
    found = std::move(*looked_up);
  }

  llvm::Expected<std::optional<std::string>> redirect =
      codeIdRedirectTarget(store_, components, found);
  if (!redirect)
    return storeFailure("code-id", redirect.takeError());
  if (*redirect) {
    std::string location = locationOf(**redirect);
    ServerResponse response = ServerResponse::text(302, "found at " + location);
    response.headers.push_back({"Location", location});
    response.route = "code-id";
    return response;
  }
  if (!found)
    return notFound(route);

  if (!opened.valid()) {
    if (std::optional<ServerResponse> not_modified =
            notModifiedAnswer(request, found->info.etag, found->info.mtime, cache_dir_)) {
      not_modified->route = route;
      return std::move(*not_modified);
    }
    llvm::Expected<OpenedObject> reopened = store_.open(found->relative);
    if (!reopened)
      return storeFailure(route, reopened.takeError());
    opened.reset(std::move(*reopened));
  }
  ServedEntity entity;
  entity.length = opened.object().info.size;
  entity.etag = opened.object().info.etag;
  entity.mtime = opened.object().info.mtime;
  entity.fd = opened.release();
  entity.content_type = contentTypeFor(found->relative);
  entity.cache_key = found->relative;
  ServerResponse response = respondWithEntity(request, std::move(entity), cache_dir_);
  response.route = route;
  return response;
}

ServerResponse DownloadService::serveDebuginfod(const ServerRequest& request,
                                                const DownloadRoute& route) {
  llvm::Expected<std::optional<ServedEntity>> entity = findDebuginfodEntity(store_, route);
  if (!entity)
    return storeFailure(route.ssqp ? "ssqp" : "debuginfod", entity.takeError());
  std::string name = route.ssqp ? "ssqp" : "debuginfod";
  if (!*entity)
    return notFound(name);
  ServerResponse response = respondWithEntity(request, std::move(**entity), cache_dir_);
  response.route = name;
  return response;
}

} // namespace dumpsyms
