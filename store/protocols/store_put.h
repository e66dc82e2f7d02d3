// PUT to the store path: a static symbol store over HTTP (nginx's WebDAV,
// `symstore serve`). The client HEADs <debug_file>/<DEBUG_ID>/<name>.sym and
// PUTs it when absent; the body may be gzip (Content-Encoding: gzip).
#pragma once

namespace dumpsyms::store_put {

inline constexpr const char* kContentType = "text/plain";
inline constexpr const char* kGzipEncoding = "gzip";
// What `symstore serve` answers a PUT (clients take any 2xx as stored).
inline constexpr int kCreated = 201;  // new, or replaced with --replace
inline constexpr int kSame = 200;     // the same bytes were there
inline constexpr int kConflict = 409; // other bytes are there

} // namespace dumpsyms::store_put
