#include "server/downloads/entity_response.h"

#include "server/downloads/accept_encoding.h"
#include "server/downloads/byte_range.h"
#include "server/downloads/gzip_variant.h"
#include "server/downloads/http_validators.h"

#include <llvm/ADT/StringRef.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

void closeEntity(ServedEntity& entity) {
  if (entity.fd >= 0)
    ::close(entity.fd);
  entity.fd = -1;
}

// Whether the answer will be the gzip copy.
bool wantsGzip(const ServerRequest& request, const std::string& cache_dir) {
  // A Range is served from the identity bytes (the copy's offsets would
  // mean nothing to a client resuming a download).
  return !cache_dir.empty() && request.header("range").empty() &&
         acceptsGzip(request.header("accept-encoding"));
}

void addValidators(ServerResponse& response, int64_t mtime) {
  response.headers.push_back({"Last-Modified", formatHttpDate(mtime)});
  response.headers.push_back({"Vary", "Accept-Encoding"});
  response.headers.push_back({"Accept-Ranges", "bytes"});
}

} // namespace

std::optional<ServerResponse> notModifiedAnswer(const ServerRequest& request,
                                                const std::string& etag, int64_t mtime,
                                                const std::string& cache_dir) {
  std::string variant_etag = gzipVariantEtag(etag);
  if (!isNotModified(request.header("if-none-match"), request.header("if-modified-since"), etag,
                     variant_etag, mtime))
    return std::nullopt;
  ServerResponse response;
  response.status = 304;
  addValidators(response, mtime);
  response.headers.push_back({"ETag", wantsGzip(request, cache_dir) ? variant_etag : etag});
  return response;
}

std::string contentTypeFor(const std::string& relative) {
  return llvm::StringRef(relative).ends_with_insensitive(".sym") ? "text/plain"
                                                                 : "application/octet-stream";
}

ServerResponse respondWithEntity(const ServerRequest& request, ServedEntity entity,
                                 const std::string& cache_dir) {
  std::string range_header = request.header("range");
  bool gzip = wantsGzip(request, cache_dir);
  std::string variant_etag = gzipVariantEtag(entity.etag);

  if (std::optional<ServerResponse> not_modified =
          notModifiedAnswer(request, entity.etag, entity.mtime, cache_dir)) {
    closeEntity(entity);
    for (auto& header : entity.extra_headers)
      not_modified->headers.push_back(header);
    return std::move(*not_modified);
  }
  ServerResponse response;
  addValidators(response, entity.mtime);
  for (auto& header : entity.extra_headers)
    response.headers.push_back(header);
  response.headers.push_back({"Content-Type", entity.content_type});

  if (gzip) {
    llvm::Expected<GzipVariant> variant = gzipVariant(cache_dir, entity.cache_key, entity.etag,
                                                      entity.fd, entity.offset, entity.length);
    // Bytes that do not compress (compressed debug sections, packed
    // binaries) are sent as they are: the copy is kept, so this is decided
    // once per file.
    if (variant && variant->size * 10 >= entity.length * 9) {
      ::close(variant->fd);
    } else if (variant) {
      closeEntity(entity);
      response.status = 200;
      response.headers.push_back({"ETag", variant_etag});
      response.headers.push_back({"Content-Encoding", "gzip"});
      response.fd = variant->fd;
      response.fd_offset = 0;
      response.fd_length = variant->size;
      return response;
    } else {
      // The identity bytes still answer the client; say why once per request.
      // (one write, so that the line is never cut by another thread's)
      std::string line = "symstore serve: warning: no gzip copy of " + entity.cache_key + ": " +
                         llvm::toString(variant.takeError()) + "\n";
      ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
      (void)written;
    }
  }

  response.headers.push_back({"ETag", entity.etag});
  ByteRange range;
  if (!range_header.empty() && ifRangeHolds(request.header("if-range"), entity.etag, entity.mtime))
    range = parseByteRange(range_header, entity.length);
  if (range.kind == ByteRange::Kind::Unsatisfiable) {
    closeEntity(entity);
    ServerResponse refusal = ServerResponse::text(416, "the range starts past the end of the file");
    refusal.headers.push_back({"Content-Range", "bytes */" + std::to_string(entity.length)});
    return refusal;
  }
  response.fd = entity.fd;
  entity.fd = -1;
  if (range.kind == ByteRange::Kind::Partial) {
    response.status = 206;
    response.headers.push_back({"Content-Range", contentRange(range, entity.length)});
    response.fd_offset = entity.offset + range.first;
    response.fd_length = range.length;
  } else {
    response.status = 200;
    response.fd_offset = entity.offset;
    response.fd_length = entity.length;
  }
  return response;
}

} // namespace dumpsyms
