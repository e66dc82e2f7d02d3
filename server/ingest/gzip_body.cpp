#include "server/ingest/gzip_body.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace dumpsyms {

std::optional<UploadRefusal> inflateGzipBody(const std::string& gzip_path, SpoolFile& out,
                                             const InflateCaps& caps) {
  int fd = ::open(gzip_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return UploadRefusal{500, std::string("cannot read the spooled body: ") + std::strerror(errno)};
  struct stat info = {};
  ::fstat(fd, &info);
  uint64_t cap = std::min(caps.entry_bytes, caps.ratioBound(uint64_t(info.st_size)));
  z_stream stream = {};
  // 16 + MAX_WBITS: the gzip wrapper, not zlib's.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    ::close(fd);
    return UploadRefusal{500, "cannot start inflating the body"};
  }
  std::vector<unsigned char> in(1 << 16), output(1 << 18);
  std::optional<UploadRefusal> refusal;
  bool ended = false;
  while (!refusal && !ended) {
    ssize_t got = ::read(fd, in.data(), in.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      refusal =
          UploadRefusal{500, std::string("cannot read the spooled body: ") + std::strerror(errno)};
      break;
    }
    if (got == 0) {
      refusal = UploadRefusal{400, "the gzip body ends before its end"};
      break;
    }
    stream.next_in = in.data();
    stream.avail_in = unsigned(got);
    while (stream.avail_in > 0 && !refusal) {
      stream.next_out = output.data();
      stream.avail_out = unsigned(output.size());
      int status = inflate(&stream, Z_NO_FLUSH);
      if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
        refusal = UploadRefusal{400, "the body is not valid gzip (Content-Encoding: gzip)"};
        break;
      }
      size_t produced = output.size() - stream.avail_out;
      if (out.size() + produced > cap) {
        refusal = UploadRefusal{413, limits::overLimit("the gzip body inflated", cap, "bytes") +
                                         " (at most " + std::to_string(caps.ratio) +
                                         " times its compressed size)"};
        break;
      }
      if (llvm::Error error =
              out.write(llvm::StringRef(reinterpret_cast<const char*>(output.data()), produced))) {
        refusal = UploadRefusal{500, llvm::toString(std::move(error))};
        break;
      }
      if (status == Z_STREAM_END) {
        ended = true;
        if (stream.avail_in > 0)
          refusal = UploadRefusal{400, "bytes follow the end of the gzip body"};
        break;
      }
      if (status == Z_BUF_ERROR && produced == 0)
        break; // needs more input
    }
  }
  if (ended && !refusal) {
    // Nothing may follow the gzip member in the rest of the file either.
    char extra = 0;
    if (::read(fd, &extra, 1) > 0)
      refusal = UploadRefusal{400, "bytes follow the end of the gzip body"};
  }
  inflateEnd(&stream);
  ::close(fd);
  if (!refusal)
    if (llvm::Error error = out.close())
      refusal = UploadRefusal{500, llvm::toString(std::move(error))};
  return refusal;
}

} // namespace dumpsyms
