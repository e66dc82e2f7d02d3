// The answer to a GET or HEAD for bytes of a file: validators (ETag,
// Last-Modified) and 304, Content-Encoding: gzip from the kept copy when
// the client accepts it, a single Range as 206 (416 when it starts past the
// end), Content-Type by name. HEAD gets the same headers as GET; the HTTP
// server sends no body for it.
#pragma once

#include "server/http/http_server.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

// What is served: `length` bytes of `fd` from `offset`.
struct ServedEntity {
  int fd = -1; // owned: handed to the response, or closed
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string etag; // quoted
  int64_t mtime = 0;
  std::string content_type;
  std::string cache_key; // names the entity among the gzip copies
  std::vector<std::pair<std::string, std::string>> extra_headers;
};

// `cache_dir`: where gzip copies are kept; "" serves no gzip.
ServerResponse respondWithEntity(const ServerRequest& request, ServedEntity entity,
                                 const std::string& cache_dir);

// The 304 answer when the request's If-None-Match or If-Modified-Since
// holds for an entity of `etag` and `mtime` (its gzip copy's tag counts
// too); none otherwise. Asked before anything is opened, so that a
// validated request costs a stat alone (an S3 store: a HEAD, no GET).
std::optional<ServerResponse> notModifiedAnswer(const ServerRequest& request,
                                                const std::string& etag, int64_t mtime,
                                                const std::string& cache_dir);

// text/plain for .sym files, application/octet-stream for anything else.
std::string contentTypeFor(const std::string& relative);

} // namespace dumpsyms
