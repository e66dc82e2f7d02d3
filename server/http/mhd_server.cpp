#include "server/http/mhd_server.h"

#include "server/http/half_close_sweeper.h"
#include "server/http/listen_address.h"
#include "server/http/open_files_limit.h"
#include "server/http/request_body.h"

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <microhttpd.h>
#include <optional>
#include <thread>
#include <unistd.h>

namespace dumpsyms {
namespace {

// What one request carries from libmicrohttpd's first call to its last.
struct RequestState {
  ServerRequest request;
  std::unique_ptr<RequestBody> body;
  bool answered = false;
  // A refusal of a request without a body, sent on the next call so that
  // the connection stays open for the client's next request.
  std::optional<ServerResponse> refusal;
  ServerResponse response; // its status, headers and route once answered
  uint64_t bytes = 0;      // body bytes the answer carries
};

std::string lowerCase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

MHD_Result collectHeader(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(cls);
  std::string& slot = headers[lowerCase(key ? key : "")];
  // Repeated headers join as one list, as RFC 9110 allows.
  slot = slot.empty() ? std::string(value ? value : "") : slot + ", " + (value ? value : "");
  return MHD_YES;
}

MHD_Result collectArgument(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto& query = *static_cast<std::map<std::string, std::string>*>(cls);
  query.emplace(key ? key : "", value ? value : ""); // the first of repeated arguments
  return MHD_YES;
}

std::string clientAddress(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (!info || !info->client_addr)
    return "-";
  char text[INET6_ADDRSTRLEN] = {};
  const sockaddr* address = info->client_addr;
  if (address->sa_family == AF_INET) {
    auto* in = reinterpret_cast<const sockaddr_in*>(address);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (address->sa_family == AF_INET6) {
    auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    return "[" + std::string(text) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "-";
}

bool carriesBody(const ServerRequest& request) {
  return !request.header("transfer-encoding").empty() ||
         (!request.header("content-length").empty() && request.header("content-length") != "0");
}

bool isBodyMethod(const std::string& method) {
  return method == "PUT" || method == "POST" || method == "PATCH";
}

bool isMultipartForm(const ServerRequest& request) {
  std::string type = lowerCase(request.header("content-type"));
  return type.rfind("multipart/form-data", 0) == 0;
}

// An answer of the server itself (a body refused before any handler saw
// it), under a route of its own in the access log and the metrics.
ServerResponse ownAnswer(int status, std::string reason) {
  ServerResponse response = ServerResponse::text(status, std::move(reason));
  response.route = "http";
  return response;
}

class MhdServer final : public HttpServer {
public:
  MhdServer(const HttpServerOptions& options, Admit admit, Handle handle, Observe observe)
      : options_(options), admit_(std::move(admit)), handle_(std::move(handle)),
        observe_(std::move(observe)) {}
  ~MhdServer() override { stop(); }

  llvm::Error start() {
    auto resolved = resolveListenAddress(options_.host, options_.port);
    if (!resolved)
      return resolved.takeError();
    std::string where = urlHost(options_.host) + ":" + std::to_string(options_.port);
    // Bound here rather than by libmicrohttpd, so that a failure is one
    // error naming the address and the reason.
    auto listener = openListeningSocket(*resolved, 4096);
    if (!listener)
      return llvm::createStringError("cannot listen on " + where + ": " +
                                     llvm::toString(listener.takeError()));
    uint64_t open_files = raiseOpenFilesLimit();
    // Every connection takes a descriptor, a download in flight a second.
    unsigned connection_budget =
        static_cast<unsigned>(std::clamp<uint64_t>(open_files / 2, 256, 65536));
    // A connection stays with the pool thread that accepted it, and the
    // threads do not draw equal shares (measured: one had twice the other's
    // CPU time under 1000 connections). With one thread per core the busier
    // thread is held to its core while the other idles; a thread blocked
    // in a cold disk read stalls its connections. Four per core let the
    // kernel spread the work (bench/serve_bench.py on 2 cores, 1000
    // connections, against nginx: 0.67x its throughput and 4.1x its p99
    // with 2 threads, 0.78x and 1.25x with 4, 0.91x and 0.78x with 8).
    unsigned threads =
        options_.threads ? options_.threads : 4 * std::max(1u, std::thread::hardware_concurrency());
    // libmicrohttpd gives each pool thread an equal share of its connection
    // limit, and the threads do not accept equal shares: a burst of 1000
    // connections went mostly to a few threads, which refused (reset) what
    // was over their share while the others had room (488 of 1000
    // answered with a budget of 1024). Each thread may take the whole
    // budget: the kernel's descriptor limit bounds them together, and at it
    // libmicrohttpd stops accepting until a connection closes.
    unsigned connection_limit = connection_budget * threads;
    // Turbo: a new connection is read at once instead of after a first
    // epoll round, and no shutdown() precedes a close the client asked for
    // (measured: ~4% less CPU per .sym download under 1000 connections).
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_TURBO |
                     MHD_USE_ERROR_LOG | (resolved->ipv6 ? MHD_USE_IPv6 : 0);
    daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &MhdServer::access, this,
                               // First, so that every message goes through it.
                               MHD_OPTION_EXTERNAL_LOGGER, &MhdServer::logError, this,
                               MHD_OPTION_LISTEN_SOCKET, static_cast<MHD_socket>(*listener),
                               MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT,
                               options_.connection_timeout_seconds, MHD_OPTION_CONNECTION_LIMIT,
                               connection_limit, MHD_OPTION_NOTIFY_COMPLETED, &MhdServer::completed,
                               this, MHD_OPTION_NOTIFY_CONNECTION, &MhdServer::connectionNotice,
                               this, MHD_OPTION_END);
    // Not closed on failure: libmicrohttpd may have closed it already, and
    // a second close could hit a descriptor another thread just opened.
    if (!daemon_)
      return llvm::createStringError("cannot start the HTTP server on " + where);
    sweeper_.start();
    // What a killed server left; a day is longer than any upload takes.
    if (!options_.spool_dir.empty())
      removeStaleSpoolFiles(options_.spool_dir, std::chrono::hours(24));
    const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    port_ = info ? info->port : options_.port;
    return llvm::Error::success();
  }

  std::string host() const override { return urlHost(options_.host); }
  uint16_t port() const override { return port_; }

  void shutdown(std::chrono::seconds grace) override {
    if (!daemon_)
      return;
    // No new connections from here; the ones open finish what they asked.
    // The listening socket is ours again, to close once the daemon stops.
    MHD_socket listener = MHD_quiesce_daemon(daemon_);
    if (listener != MHD_INVALID_SOCKET)
      quiesced_listener_ = listener;
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (in_flight_.load() > 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop();
  }

private:
  void stop() {
    sweeper_.stop();
    if (daemon_) {
      MHD_stop_daemon(daemon_);
      daemon_ = nullptr;
    }
    // libmicrohttpd closes its listening socket when it stops, unless it
    // was handed back by MHD_quiesce_daemon.
    if (quiesced_listener_ >= 0) {
      ::close(quiesced_listener_);
      quiesced_listener_ = -1;
    }
  }

  static void logError(void*, const char* format, va_list arguments) {
    char message[1024];
    std::vsnprintf(message, sizeof message, format, arguments);
    std::string line = std::string("symstore serve: libmicrohttpd: ") + message;
    if (line.back() != '\n')
      line += '\n';
    std::fputs(line.c_str(), stderr);
  }

  static MHD_Result access(void* cls, MHD_Connection* connection, const char* url,
                           const char* method, const char*, const char* upload_data,
                           size_t* upload_data_size, void** con_cls) {
    auto* self = static_cast<MhdServer*>(cls);
    try {
      return self->onRequest(connection, url, method, upload_data, upload_data_size, con_cls);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "symstore serve: %s %s: %s\n", method, url, error.what());
    } catch (...) {
      std::fprintf(stderr, "symstore serve: %s %s: an unknown error\n", method, url);
    }
    // Nothing may unwind into libmicrohttpd: answer 500 if still possible.
    auto* state = static_cast<RequestState*>(*con_cls);
    if (state && !state->answered && (!upload_data || *upload_data_size == 0))
      return self->answer(connection, *state, ownAnswer(500, "internal server error"));
    return MHD_NO;
  }

  MHD_Result onRequest(MHD_Connection* connection, const char* url, const char* method,
                       const char* upload_data, size_t* upload_data_size, void** con_cls) {
    auto* state = static_cast<RequestState*>(*con_cls);
    if (!state) {
      auto owned = std::make_unique<RequestState>();
      state = owned.get();
      *con_cls = owned.release();
      in_flight_.fetch_add(1);
      return firstCall(connection, url, method, *state);
    }
    if (state->answered) { // refused: the rest of the body is discarded
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (*upload_data_size > 0) {
      size_t size = *upload_data_size;
      *upload_data_size = 0;
      if (!state->body || state->body->append(upload_data, size))
        return MHD_YES;
      // Past the size cap nothing more is read: the connection is closed
      // (an answer cannot be queued while a body is still arriving).
      if (state->body->tooLarge()) {
        state->response = ownAnswer(413, state->body->reason());
        state->answered = true;
        return MHD_NO;
      }
      return MHD_YES; // other failures are answered once the body ends
    }
    return lastCall(connection, *state);
  }

  MHD_Result firstCall(MHD_Connection* connection, const char* url, const char* method,
                       RequestState& state) {
    ServerRequest& request = state.request;
    request.started = std::chrono::steady_clock::now();
    request.method = method ? method : "";
    request.path = url ? url : "";
    MHD_get_connection_values(connection, MHD_HEADER_KIND, &collectHeader, &request.headers);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &collectArgument, &request.query);
    request.client = clientAddress(connection);

    bool has_body = isBodyMethod(request.method) || carriesBody(request);
    if (auto refusal = admit_(request)) {
      if (!has_body) {
        state.refusal = std::move(refusal);
        return MHD_YES;
      }
      // Answered before the body is read: libmicrohttpd sends no
      // "100 Continue", drops the body and closes the connection.
      return answer(connection, state, std::move(*refusal));
    }
    BodyPlan plan{options_.max_body_bytes, true};
    if (options_.body_plan)
      plan = options_.body_plan(request);
    std::string length = request.header("content-length");
    // Repeated Content-Length headers were joined with commas: the body's
    // end would be ambiguous, as in request smuggling.
    if (length.find(',') != std::string::npos)
      return answer(connection, state, ownAnswer(400, "more than one Content-Length"));
    if (!length.empty()) {
      errno = 0;
      char* end = nullptr;
      unsigned long long declared = std::strtoull(length.c_str(), &end, 10);
      if (*end == 0 && errno == 0 && declared > plan.max_bytes)
        return answer(
            connection, state,
            ownAnswer(413, "the body is larger than " + std::to_string(plan.max_bytes) + " bytes"));
    }
    // A request without a body is answered on the next call: an answer
    // queued now would count as early and close the connection.
    if (!has_body)
      return MHD_YES;
    state.body = std::make_unique<RequestBody>(options_.spool_dir, plan.max_bytes);
    if (plan.parse_form && isMultipartForm(request) && !state.body->startForm(connection))
      return answer(connection, state,
                    ownAnswer(400, "the multipart/form-data body has no boundary"));
    return MHD_YES;
  }

  MHD_Result lastCall(MHD_Connection* connection, RequestState& state) {
    sweeper_.answering(connection, true);
    if (state.refusal)
      return answer(connection, state, std::move(*state.refusal));
    if (state.body && !state.body->finish(state.request))
      return answer(connection, state, ownAnswer(state.body->status(), state.body->reason()));
    return answer(connection, state, handle_(state.request));
  }

  MHD_Result answer(MHD_Connection* connection, RequestState& state, ServerResponse response) {
    sweeper_.answering(connection, true);
    MHD_Response* reply = nullptr;
    uint64_t bytes = 0;
    if (response.fd >= 0) {
      // Sent by sendfile; libmicrohttpd closes the descriptor.
      reply = MHD_create_response_from_fd_at_offset64(response.fd_length, response.fd,
                                                      response.fd_offset);
      if (!reply)
        ::close(response.fd);
      response.fd = -1;
      bytes = response.fd_length;
    } else {
      reply = MHD_create_response_from_buffer(response.body.size(), response.body.data(),
                                              MHD_RESPMEM_MUST_COPY);
      bytes = response.body.size();
    }
    if (!reply)
      return MHD_NO;
    for (const auto& [name, value] : response.headers)
      MHD_add_response_header(reply, name.c_str(), value.c_str());
    MHD_Result queued =
        MHD_queue_response(connection, static_cast<unsigned>(response.status), reply);
    MHD_destroy_response(reply);
    if (state.request.method == "HEAD" || response.status == 304 || response.status == 204)
      bytes = 0;
    response.body.clear();
    state.response = std::move(response);
    state.bytes = bytes;
    state.answered = true;
    return queued;
  }

  static void connectionNotice(void* cls, MHD_Connection* connection, void**,
                               MHD_ConnectionNotificationCode code) {
    auto* self = static_cast<MhdServer*>(cls);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      self->sweeper_.closed(connection);
      return;
    }
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info)
      self->sweeper_.opened(connection, info->connect_fd);
  }

  static void completed(void* cls, MHD_Connection* connection, void** con_cls,
                        MHD_RequestTerminationCode code) {
    auto* self = static_cast<MhdServer*>(cls);
    self->sweeper_.answering(connection, false);
    std::unique_ptr<RequestState> state(static_cast<RequestState*>(*con_cls));
    *con_cls = nullptr;
    if (!state)
      return;
    if (state->answered && self->observe_) {
      uint64_t bytes = code == MHD_REQUEST_TERMINATED_COMPLETED_OK ? state->bytes : 0;
      try {
        self->observe_(state->request, state->response, bytes,
                       std::chrono::steady_clock::now() - state->request.started);
      } catch (...) {
      }
    }
    state.reset(); // removes the spool files before the request counts as done
    self->in_flight_.fetch_sub(1);
  }

  HttpServerOptions options_;
  Admit admit_;
  Handle handle_;
  Observe observe_;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
  int quiesced_listener_ = -1;
  std::atomic<int64_t> in_flight_{0};
  // Half-closed clients' connections, which epoll would leave to the idle
  // timeout (half_close_sweeper.h).
  HalfCloseSweeper sweeper_{std::chrono::milliseconds(500)};
};

} // namespace

llvm::Expected<std::unique_ptr<HttpServer>> startMhdServer(const HttpServerOptions& options,
                                                           HttpServer::Admit admit,
                                                           HttpServer::Handle handle,
                                                           HttpServer::Observe observe) {
  auto server =
      std::make_unique<MhdServer>(options, std::move(admit), std::move(handle), std::move(observe));
  if (llvm::Error error = server->start())
    return error;
  return std::unique_ptr<HttpServer>(std::move(server));
}

} // namespace dumpsyms
