#include "server/http/http_server.h"

#include "server/http/mhd_server.h"

namespace dumpsyms {

std::string ServerRequest::header(const std::string& lower_case_name) const {
  auto it = headers.find(lower_case_name);
  return it == headers.end() ? std::string() : it->second;
}

ServerResponse ServerResponse::text(int status, std::string reason) {
  ServerResponse response;
  response.status = status;
  response.body = std::move(reason) + "\n";
  response.headers.push_back({"Content-Type", "text/plain; charset=utf-8"});
  return response;
}

llvm::Expected<std::unique_ptr<HttpServer>>
HttpServer::start(const HttpServerOptions& options, Admit admit, Handle handle, Observe observe) {
  if (options.max_body_bytes == 0)
    return llvm::createStringError("the HTTP server needs a body size limit");
  return startMhdServer(options, std::move(admit), std::move(handle), std::move(observe));
}

} // namespace dumpsyms
