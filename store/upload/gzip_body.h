// gzip (RFC 1952) compression for request bodies sent with
// Content-Encoding: gzip. LLVM's zlib wrapper writes the zlib format, which
// HTTP's gzip coding is not.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

llvm::Expected<std::string> gzipCompress(llvm::StringRef data);

} // namespace dumpsyms
