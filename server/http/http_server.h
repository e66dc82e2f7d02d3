// An HTTP/1.1 server over libmicrohttpd: no HTTP parsing of our own. It
// hands a handler complete requests (headers, query arguments, a body
// spooled to a file, multipart form fields from libmicrohttpd's post
// processor) and sends what the handler answers, files by sendfile.
// Nothing here knows a route or a store.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <llvm/Support/Error.h>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

// One part of a multipart/form-data body.
struct FormField {
  std::string value;      // a plain field's text (capped), or
  std::string spool_path; // a file part's bytes, spooled to this file
  std::string filename;   // set for a file part
  uint64_t size = 0;
};

struct ServerRequest {
  std::string method;                         // GET, HEAD, PUT, POST, ...
  std::string path;                           // percent-decoded by libmicrohttpd
  std::map<std::string, std::string> query;   // decoded arguments
  std::map<std::string, std::string> headers; // lower-case names
  std::string client;                         // "127.0.0.1:54321"
  // The body, for methods that carry one (chunked or not): spooled to
  // body_path (removed after the handler returns), unless it was a
  // multipart form, whose fields are in `form` instead.
  std::string body_path;
  uint64_t body_size = 0;
  std::map<std::string, FormField> form;
  std::chrono::steady_clock::time_point started;

  std::string header(const std::string& lower_case_name) const;
};

struct ServerResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;       // the body, unless fd is set
  int fd = -1;            // a file body (owned: closed once sent)
  uint64_t fd_offset = 0; // the part of it to send
  uint64_t fd_length = 0;
  // Filled in by the server once the answer is sent, for the access log
  // and the metrics: the route the handler named (e.g. "breakpad").
  std::string route;

  // A plain-text answer: `status` with `reason` and a newline as the body.
  static ServerResponse text(int status, std::string reason);
};

// How one request's body is received: its size cap, and whether a
// multipart form is taken apart into fields (else it is spooled as it came:
// a route that inflates or parses its body itself).
struct BodyPlan {
  uint64_t max_bytes = 0;
  bool parse_form = true;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;                     // 0: any free port
  unsigned threads = 0;                     // 0: four per core
  unsigned connection_timeout_seconds = 30; // a client idle this long is dropped
  uint64_t max_body_bytes = 0;              // required: bodies larger are refused with 413
  std::string spool_dir;                    // where bodies are spooled
  // Per request, from its headers: unset, every body is capped at
  // max_body_bytes and forms are taken apart.
  std::function<BodyPlan(const ServerRequest&)> body_plan;
};

class HttpServer {
public:
  // Decides from the headers alone whether the body may be read: a
  // refusal (401, 403, 413, 404, 405) is sent without reading it.
  using Admit = std::function<std::optional<ServerResponse>(const ServerRequest&)>;
  using Handle = std::function<ServerResponse(ServerRequest&)>;
  // Called once per request after its answer was queued (access log, metrics).
  using Observe = std::function<void(const ServerRequest&, const ServerResponse&, uint64_t bytes,
                                     std::chrono::steady_clock::duration)>;

  static llvm::Expected<std::unique_ptr<HttpServer>>
  start(const HttpServerOptions& options, Admit admit, Handle handle, Observe observe);
  virtual ~HttpServer() = default;
  // The address it listens on, with the port the system picked for 0.
  virtual std::string host() const = 0;
  virtual uint16_t port() const = 0;
  // Stops accepting, lets requests in flight finish (at most `grace`), stops.
  virtual void shutdown(std::chrono::seconds grace) = 0;
};

} // namespace dumpsyms
