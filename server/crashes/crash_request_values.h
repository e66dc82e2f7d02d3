// What the crash inbox's API and pages both read from a request and the clock.
#pragma once

#include "server/http/http_server.h"

#include <chrono>
#include <cstdint>
#include <string>

namespace dumpsyms {

inline int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A query argument, "" when absent.
inline std::string queryOf(const ServerRequest& request, const char* name) {
  auto found = request.query.find(name);
  return found == request.query.end() ? std::string() : found->second;
}

} // namespace dumpsyms
