// HttpServer over libmicrohttpd: its daemon, per-request state and the
// answers it queues. Only http_server.cpp starts one.
#pragma once

#include "server/http/http_server.h"

namespace dumpsyms {

llvm::Expected<std::unique_ptr<HttpServer>> startMhdServer(const HttpServerOptions& options,
                                                           HttpServer::Admit admit,
                                                           HttpServer::Handle handle,
                                                           HttpServer::Observe observe);

} // namespace dumpsyms
