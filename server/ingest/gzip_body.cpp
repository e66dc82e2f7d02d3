#include "server/ingest/gzip_body.h"

#include "common/gzip/gzip.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// A refusal in the words of an upload answer.
UploadRefusal refusalFor(const GunzipError& error, uint64_t cap, const InflateCaps& caps) {
  switch (error.problem()) {
  case GunzipError::Problem::ReadFailed:
    return {500, "cannot read the spooled body: " + error.detail()};
  case GunzipError::Problem::NotGzip:
    return {400, "the body is not valid gzip (Content-Encoding: gzip)"};
  case GunzipError::Problem::Truncated:
    return {400, "the gzip body ends before its end"};
  case GunzipError::Problem::TrailingBytes:
    return {400, "bytes follow the end of the gzip body"};
  case GunzipError::Problem::OverLimit:
    return {413, limits::overLimit("the gzip body inflated", cap, "bytes") + " (at most " +
                     std::to_string(caps.ratio) + " times its compressed size)"};
  case GunzipError::Problem::WriteFailed:
    break;
  }
  return {500, error.detail()};
}

} // namespace

std::optional<UploadRefusal> inflateGzipBody(const std::string& gzip_path, SpoolFile& out,
                                             const InflateCaps& caps) {
  int fd = ::open(gzip_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return UploadRefusal{500, std::string("cannot read the spooled body: ") + std::strerror(errno)};
  struct stat info = {};
  ::fstat(fd, &info);
  uint64_t cap = std::min(caps.entry_bytes, caps.ratioBound(uint64_t(info.st_size)));
  llvm::Error inflated =
      gunzip(fd, [&](llvm::StringRef bytes) { return out.write(bytes); }, {cap, false});
  ::close(fd);
  std::optional<UploadRefusal> refusal;
  llvm::handleAllErrors(std::move(inflated),
                        [&](const GunzipError& error) { refusal = refusalFor(error, cap, caps); });
  if (!refusal)
    if (llvm::Error error = out.close())
      refusal = UploadRefusal{500, llvm::toString(std::move(error))};
  return refusal;
}

} // namespace dumpsyms
