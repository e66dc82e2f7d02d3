#include "common/gzip/gzip.h"

#include <cerrno>
#include <cstring>
#include <isa-l/igzip_lib.h>
#include <unistd.h>
#include <vector>

namespace dumpsyms {

namespace {

constexpr size_t kChunk = size_t(1) << 20;

llvm::Error writeAll(int fd, const uint8_t* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return llvm::createStringError(std::string("cannot write a gzip copy: ") +
                                     std::strerror(errno));
    data += n;
    size -= static_cast<size_t>(n);
  }
  return llvm::Error::success();
}

// ISA-L's deflate at level 1 with a gzip wrapper, fed by `next` (which
// fills the input and says whether it was the last piece) and drained by
// `drain` each time the output buffer fills or the stream ends.
class GzipDeflater {
public:
  GzipDeflater() : output_(kChunk), level_buffer_(ISAL_DEF_LVL1_DEFAULT) {
    isal_deflate_init(&stream_);
    stream_.gzip_flag = IGZIP_GZIP;
    stream_.level = 1;
    stream_.level_buf = level_buffer_.data();
    stream_.level_buf_size = static_cast<uint32_t>(level_buffer_.size());
    stream_.flush = NO_FLUSH;
  }

  // Deflates `piece`; `last` ends the stream.
  llvm::Error add(llvm::ArrayRef<uint8_t> piece, bool last,
                  const std::function<llvm::Error(llvm::ArrayRef<uint8_t>)>& drain) {
    stream_.next_in = const_cast<uint8_t*>(piece.data());
    stream_.avail_in = static_cast<uint32_t>(piece.size());
    stream_.end_of_stream = last ? 1 : 0;
    do {
      stream_.next_out = output_.data();
      stream_.avail_out = static_cast<uint32_t>(output_.size());
      if (isal_deflate(&stream_) != COMP_OK)
        return llvm::createStringError("gzip compression failed");
      if (llvm::Error error =
              drain(llvm::ArrayRef<uint8_t>(output_.data(), output_.size() - stream_.avail_out)))
        return error;
    } while (stream_.avail_out == 0 || (last && stream_.internal_state.state != ZSTATE_END));
    return llvm::Error::success();
  }

private:
  isal_zstream stream_;
  std::vector<uint8_t> output_, level_buffer_;
};

} // namespace

llvm::Expected<std::string> gzipCompress(llvm::StringRef data) {
  std::string out;
  GzipDeflater deflater;
  auto append = [&](llvm::ArrayRef<uint8_t> bytes) {
    out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    return llvm::Error::success();
  };
  // (in pieces: ISA-L counts its input in 32 bits)
  size_t done = 0;
  do {
    size_t piece = std::min(kChunk, data.size() - done);
    bool last = done + piece == data.size();
    if (llvm::Error error = deflater.add(
            llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(data.data()) + done, piece),
            last, append))
      return error;
    done += piece;
  } while (done < data.size());
  return out;
}

llvm::Error gzipCompressRange(int in, uint64_t offset, uint64_t length, int out) {
  std::vector<uint8_t> input(kChunk);
  GzipDeflater deflater;
  auto write = [&](llvm::ArrayRef<uint8_t> bytes) {
    return writeAll(out, bytes.data(), bytes.size());
  };
  uint64_t done = 0;
  do {
    size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, length - done));
    ssize_t got = 0;
    while (want > 0) {
      got = ::pread(in, input.data(), want, static_cast<off_t>(offset + done));
      if (got < 0 && errno == EINTR)
        continue;
      break;
    }
    if (got < 0 || (want > 0 && got == 0))
      return llvm::createStringError("the file to compress ended early or cannot be read");
    done += static_cast<uint64_t>(got);
    if (llvm::Error error = deflater.add(
            llvm::ArrayRef<uint8_t>(input.data(), static_cast<size_t>(got)), done == length, write))
      return error;
  } while (done < length);
  return llvm::Error::success();
}

} // namespace dumpsyms
