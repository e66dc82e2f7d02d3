#include "server/service/symbol_service.h"

#include "server/service/page_cookie.h"

namespace dumpsyms {
namespace {

bool isRead(const std::string& method) {
  return method == "GET" || method == "HEAD";
}

// A client on this machine: 127.0.0.0/8, ::1, or 127.x mapped into IPv6.
bool isLoopbackClient(const std::string& client) {
  return client.rfind("127.", 0) == 0 || client.rfind("[::1]", 0) == 0 ||
         client.rfind("[::ffff:127.", 0) == 0;
}

ServerResponse routed(ServerResponse response, std::string route) {
  response.route = std::move(route);
  return response;
}

} // namespace

SymbolService::SymbolService(const TokenSet& tokens, SymbolServiceSettings settings,
                             DownloadService& downloads, UploadService& uploads,
                             BrowseService& pages, ServerMetrics& metrics,
                             std::function<void()> published)
    : tokens_(tokens), settings_(settings), downloads_(downloads), uploads_(uploads), pages_(pages),
      metrics_(metrics), published_(std::move(published)) {}

std::optional<ServerResponse> SymbolService::authorize(const ServerRequest& request,
                                                       unsigned permission, const char* what,
                                                       const std::string& route) {
  std::optional<std::string> token = requestToken(request);
  // A person browsing a private server's pages gives the key once
  // (?key=); the pages' cookie carries it to the next page and to the
  // files the pages link to. Never to an upload.
  if ((!token || token->empty()) && isRead(request.method))
    token = pageCookieToken(request);
  if (!token || token->empty()) {
    metrics_.authRefused(401);
    ServerResponse refusal = ServerResponse::text(
        401, std::string(what) + " needs a token (Auth-Token, Authorization: Bearer, or ?key=)");
    refusal.headers.push_back({"WWW-Authenticate", "Bearer"});
    return routed(std::move(refusal), route);
  }
  unsigned granted = tokens_.permissions(*token);
  if ((granted & permission) == 0) {
    metrics_.authRefused(403);
    return routed(ServerResponse::text(403, granted ? std::string("the token may not ") + what
                                                    : std::string("the token is not known here")),
                  route);
  }
  return std::nullopt;
}

std::optional<ServerResponse> SymbolService::admit(const ServerRequest& request) {
  if (isRead(request.method) && (request.path == "/healthz" || request.path == "/metrics"))
    return std::nullopt;
  CrashRoute crash_route = crashes_ ? crashRouteOf(request.method, request.path) : CrashRoute::None;
  if (crash_route == CrashRoute::Submit) {
    if (tokens_.anyHas(kPermissionSubmit))
      return authorize(request, kPermissionSubmit, "submit crashes", "submit");
    return std::nullopt;
  }
  if (crash_route == CrashRoute::Read) {
    if (tokens_.size() > 0)
      return authorize(request, kPermissionCrashes, "read crashes", "crashes");
    // Crash reports hold what was in a user's memory: without tokens they
    // are shown to this machine only, unless the operator says otherwise.
    if (!settings_.crashes_public && !isLoopbackClient(request.client)) {
      metrics_.authRefused(403);
      return routed(ServerResponse::text(403, "crashes are shown to this machine only: give the "
                                              "server --tokens with a `crashes` token, or "
                                              "--crashes-public"),
                    "crashes");
    }
    return std::nullopt;
  }
  if (isPageUpload(request.method, request.path)) {
    // A person's browser sends the token in the form, which only the body
    // holds: the page judges that one. A header's token is judged here.
    std::optional<std::string> token = requestToken(request);
    if (tokens_.size() == 0 || !token || token->empty())
      return std::nullopt;
    return authorize(request, kPermissionUpload, "upload", "pages");
  }
  if (auto upload = matchUploadRoute(request.method, request.path))
    return authorize(request, kPermissionUpload, "upload", uploadRouteName(*upload));
  if (isRead(request.method)) {
    if (settings_.private_downloads)
      return authorize(request, kPermissionDownload, "download", "download");
    return std::nullopt;
  }
  ServerResponse refusal =
      ServerResponse::text(405, "method " + request.method + " is not allowed here");
  refusal.headers.push_back({"Allow", "GET, HEAD"});
  return routed(std::move(refusal), "other");
}

ServerResponse SymbolService::handle(ServerRequest& request) {
  // admit() has let this request through: only the route is left to find.
  if (isRead(request.method) && request.path == "/healthz")
    return routed(ServerResponse::text(200, "ok"), "healthz");
  if (isRead(request.method) && request.path == "/metrics") {
    ServerResponse response;
    response.body = metrics_.text();
    response.headers.push_back({"Content-Type", "text/plain; version=0.0.4; charset=utf-8"});
    response.headers.push_back({"Cache-Control", "no-store"});
    return routed(std::move(response), "metrics");
  }
  if (crashes_ && crashRouteOf(request.method, request.path) != CrashRoute::None) {
    ServerResponse response = crashes_->handle(request);
    // As on a private store's pages: a key given once is kept by a cookie.
    if (tokens_.size() > 0 && isRead(request.method) && request.query.count("key"))
      if (auto cookie = pageCookie(*requestToken(request)))
        response.headers.push_back({"Set-Cookie", *cookie});
    return response;
  }
  if (isPageRequest(request.method, request.path)) {
    // admit() refused a header token that may not upload; one that is
    // here may, or there are no tokens at all.
    std::optional<std::string> token = requestToken(request);
    bool token_accepted = tokens_.size() == 0 || (token && !token->empty());
    ServerResponse response = pages_.handle(request, token_accepted);
    if (settings_.private_downloads && isRead(request.method) && request.query.count("key"))
      if (auto cookie = pageCookie(*requestToken(request)))
        response.headers.push_back({"Set-Cookie", *cookie});
    return response;
  }
  if (auto upload = matchUploadRoute(request.method, request.path)) {
    ServerResponse response = uploads_.handle(*upload, request);
    if (response.route.empty())
      response.route = uploadRouteName(*upload);
    if (published_ && response.status >= 200 && response.status < 300)
      published_();
    return response;
  }
  if (isRead(request.method)) {
    ServerResponse response = downloads_.handle(request);
    if (response.route.empty())
      response.route = "download";
    return response;
  }
  return routed(ServerResponse::text(405, "method " + request.method + " is not allowed here"),
                "other");
}

} // namespace dumpsyms
