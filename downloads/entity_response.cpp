#include "downloads/entity_response.h"

#include "downloads/accept_encoding.h"
#include "downloads/byte_range.h"
#include "downloads/gzip_variant.h"
#include "downloads/http_validators.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

void closeEntity(ServedEntity& entity) {
  if (entity.fd >= 0)
    ::close(entity.fd);
  entity.fd = -1;
}

} // namespace

std::string contentTypeFor(const std::string& relative) {
  return llvm::StringRef(relative).ends_with_insensitive(".sym") ? "text/plain"
                                                                 : "application/octet-stream";
}

ServerResponse respondWithEntity(const ServerRequest& request, ServedEntity entity,
                                 const std::string& cache_dir) {
  std::string range_header = request.header("range");
  // A Range is served from the identity bytes (the copy's offsets would
  // mean nothing to a client resuming a download).
  bool gzip =
      !cache_dir.empty() && range_header.empty() && acceptsGzip(request.header("accept-encoding"));
  std::string variant_etag = gzipVariantEtag(entity.etag);

  ServerResponse response;
  response.headers.push_back({"Last-Modified", formatHttpDate(entity.mtime)});
  response.headers.push_back({"Vary", "Accept-Encoding"});
  response.headers.push_back({"Accept-Ranges", "bytes"});
  for (auto& header : entity.extra_headers)
    response.headers.push_back(header);

  if (isNotModified(request.header("if-none-match"), request.header("if-modified-since"),
                    entity.etag, variant_etag, entity.mtime)) {
    closeEntity(entity);
    response.status = 304;
    response.headers.push_back({"ETag", gzip ? variant_etag : entity.etag});
    return response;
  }
  response.headers.push_back({"Content-Type", entity.content_type});

  if (gzip) {
    llvm::Expected<GzipVariant> variant = gzipVariant(cache_dir, entity.cache_key, entity.etag,
                                                      entity.fd, entity.offset, entity.length);
    if (variant) {
      closeEntity(entity);
      response.status = 200;
      response.headers.push_back({"ETag", variant_etag});
      response.headers.push_back({"Content-Encoding", "gzip"});
      response.fd = variant->fd;
      response.fd_offset = 0;
      response.fd_length = variant->size;
      return response;
    }
    // The identity bytes still answer the client; say why once per request.
    llvm::errs() << "symstore serve: warning: no gzip copy of " << entity.cache_key << ": "
                 << llvm::toString(variant.takeError()) << "\n";
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
