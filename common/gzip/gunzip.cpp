#include "common/gzip/gzip.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <llvm/Support/raw_ostream.h>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace dumpsyms {

char GunzipError::ID = 0;

void GunzipError::log(llvm::raw_ostream& out) const {
  switch (problem_) {
  case Problem::ReadFailed:
    out << "cannot be read";
    break;
  case Problem::NotGzip:
    out << "not a whole gzip stream";
    break;
  case Problem::Truncated:
    out << "the gzip stream is truncated";
    break;
  case Problem::TrailingBytes:
    out << "bytes follow the end of the gzip stream";
    break;
  case Problem::OverLimit:
    out << "inflates to more than " << detail_ << " bytes";
    return;
  case Problem::WriteFailed:
    out << "the inflated bytes cannot be written";
    break;
  }
  if (!detail_.empty())
    out << ": " << detail_;
}

std::error_code GunzipError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

namespace {

llvm::Error failure(GunzipError::Problem problem, std::string detail = "") {
  return llvm::make_error<GunzipError>(problem, std::move(detail));
}

// zlib's inflate state, ended however the inflation ends.
class Inflater {
public:
  Inflater() {
    // 16 + MAX_WBITS: the gzip wrapper, not zlib's.
    ready_ = inflateInit2(&stream_, 16 + MAX_WBITS) == Z_OK;
  }
  ~Inflater() {
    if (ready_)
      inflateEnd(&stream_);
  }
  bool ready() const { return ready_; }
  z_stream& stream() { return stream_; }

private:
  z_stream stream_ = {};
  bool ready_ = false;
};

// Reads what `fd` has next into `buffer`: the byte count, 0 at its end.
llvm::Expected<size_t> readSome(int fd, std::vector<unsigned char>& buffer) {
  for (;;) {
    ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got >= 0)
      return static_cast<size_t>(got);
    if (errno != EINTR)
      return failure(GunzipError::Problem::ReadFailed, std::strerror(errno));
  }
}

} // namespace

llvm::Error gunzip(int in, const GunzipSink& out, const GunzipRules& rules) {
  Inflater inflater;
  if (!inflater.ready())
    return failure(GunzipError::Problem::NotGzip, "cannot start inflating");
  z_stream& stream = inflater.stream();
  std::vector<unsigned char> input(1 << 16), output(1 << 18);
  uint64_t written = 0;
  bool at_end = false; // the input has no more bytes
  bool member_ended = false;
  for (;;) {
    if (stream.avail_in == 0 && !at_end) {
      llvm::Expected<size_t> got = readSome(in, input);
      if (!got)
        return got.takeError();
      at_end = *got == 0;
      stream.next_in = input.data();
      stream.avail_in = static_cast<uInt>(*got);
    }
    if (member_ended) {
      if (stream.avail_in == 0 && at_end)
        return llvm::Error::success(); // the end of the last member
      if (!rules.concatenated_members)
        return failure(GunzipError::Problem::TrailingBytes);
      // Another member follows.
      if (inflateReset(&stream) != Z_OK)
        return failure(GunzipError::Problem::NotGzip, "cannot inflate the next member");
      member_ended = false;
    }
    if (stream.avail_in == 0 && at_end)
      return failure(GunzipError::Problem::Truncated);
    stream.next_out = output.data();
    stream.avail_out = static_cast<uInt>(output.size());
    int status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR)
      return failure(GunzipError::Problem::NotGzip, stream.msg ? stream.msg : "");
    size_t produced = output.size() - stream.avail_out;
    if (status == Z_BUF_ERROR && produced == 0 && stream.avail_in > 0)
      return failure(GunzipError::Problem::NotGzip, "no progress"); // never spin on it
    if (produced > rules.max_output - written)
      return failure(GunzipError::Problem::OverLimit, std::to_string(rules.max_output));
    written += produced;
    if (produced)
      if (llvm::Error error =
              out(llvm::StringRef(reinterpret_cast<const char*>(output.data()), produced)))
        return failure(GunzipError::Problem::WriteFailed, llvm::toString(std::move(error)));
    member_ended = status == Z_STREAM_END;
  }
}

llvm::Error gunzipFile(const std::string& gzip_path, const std::string& out_path,
                       const GunzipRules& rules) {
  int in = ::open(gzip_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return llvm::createStringError(gzip_path + ": cannot be read");
  std::FILE* out = std::fopen(out_path.c_str(), "wb");
  if (!out) {
    ::close(in);
    return llvm::createStringError(out_path + ": cannot be written");
  }
  llvm::Error inflated = gunzip(
      in,
      [&](llvm::StringRef bytes) -> llvm::Error {
        if (std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size())
          return llvm::createStringError(out_path + ": write error");
        return llvm::Error::success();
      },
      rules);
  ::close(in);
  bool flushed = std::fclose(out) == 0;
  if (inflated) {
    std::string message;
    llvm::handleAllErrors(std::move(inflated), [&](const GunzipError& error) {
      // The sink's own message names its file already.
      message = error.problem() == GunzipError::Problem::WriteFailed
                    ? error.detail()
                    : gzip_path + ": " + error.message();
    });
    return llvm::createStringError(message);
  }
  if (!flushed)
    return llvm::createStringError(out_path + ": write error");
  return llvm::Error::success();
}

} // namespace dumpsyms
