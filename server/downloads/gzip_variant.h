// The gzip-coded copy of a served file (Content-Encoding: gzip), made once
// and kept in the server's cache directory, so that no request compresses:
//   <cache_dir>/gzip/<hash of what is served>/<hash of its ETag>.gz
// A new ETag for the same file (the file was replaced) makes a new copy
// and removes the older ones beside it. Copies are written atomically, so
// that servers sharing a cache directory, or two requests racing, never
// read a partial one.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

struct GzipVariant {
  int fd = -1; // owned by the receiver
  uint64_t size = 0;
};

// `key` names what is served (a store path, or a path and a section);
// `etag` is its current ETag; its bytes are `length` bytes of `fd` from
// `offset` (fd is read with pread, and stays the caller's).
llvm::Expected<GzipVariant> gzipVariant(const std::string& cache_dir, const std::string& key,
                                        const std::string& etag, int fd, uint64_t offset,
                                        uint64_t length);

// The ETag of the gzip-coded form of the entity tagged `etag`.
std::string gzipVariantEtag(const std::string& etag);

} // namespace dumpsyms
