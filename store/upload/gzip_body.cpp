#include "store/upload/gzip_body.h"

#include <zlib.h>

namespace dumpsyms {

llvm::Expected<std::string> gzipCompress(llvm::StringRef data) {
  if (data.size() > 0xffffffffu)
    return llvm::createStringError("a file too large to compress in one piece");
  z_stream stream = {};
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return llvm::createStringError("cannot start gzip compression");
  std::string out;
  out.resize(deflateBound(&stream, data.size()));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  int result = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (result != Z_STREAM_END)
    return llvm::createStringError("gzip compression failed");
  out.resize(stream.total_out);
  return out;
}

} // namespace dumpsyms
