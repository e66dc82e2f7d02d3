// Inflates a gzip file (RFC 1952; concatenated members too) into another,
// stopping at a cap: an object stored with Content-Encoding: gzip (what
// `symstore upload --gzip` sends to S3) is served as the file it encodes.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// Writes the inflated bytes of `gzip_path` to `out_path` (created or
// emptied). An error for a corrupt or truncated stream, or when the output
// would pass `max_output` bytes.
llvm::Error gunzipFile(const std::string& gzip_path, const std::string& out_path,
                       uint64_t max_output);

} // namespace dumpsyms
