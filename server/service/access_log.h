// One line per request on standard error, written whole (one write) so
// lines from server threads never interleave:
//   2026-12-05T00:10:00Z 127.0.0.1:54321 GET /app/ID/app.sym 200 1234 0.8ms breakpad
// The query string is never logged (it may hold a `key=` token), and the
// path is escaped so a request cannot forge a line.
#pragma once

#include "server/http/http_server.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace dumpsyms {

std::string accessLogLine(const ServerRequest& request, const ServerResponse& response,
                          uint64_t bytes, std::chrono::steady_clock::duration duration,
                          std::chrono::system_clock::time_point now);

void writeAccessLog(const std::string& line);

} // namespace dumpsyms
