#include "store/backend/gunzip_file.h"

#include <cstdio>
#include <memory>
#include <vector>
#include <zlib.h>

namespace dumpsyms {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

} // namespace

llvm::Error gunzipFile(const std::string& gzip_path, const std::string& out_path,
                       uint64_t max_output) {
  File in(std::fopen(gzip_path.c_str(), "rb"));
  if (!in)
    return llvm::createStringError(gzip_path + ": cannot be read");
  File out(std::fopen(out_path.c_str(), "wb"));
  if (!out)
    return llvm::createStringError(out_path + ": cannot be written");
  z_stream stream = {};
  // 16 + MAX_WBITS: the gzip wrapper, not zlib's.
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
    return llvm::createStringError(gzip_path + ": cannot start inflating");
  std::vector<unsigned char> input(1 << 16), output(1 << 16);
  uint64_t written = 0;
  int status = Z_OK;
  bool more_input = true;
  std::string problem;
  while (problem.empty()) {
    if (stream.avail_in == 0 && more_input) {
      size_t n = std::fread(input.data(), 1, input.size(), in.get());
      if (n == 0) {
        more_input = false;
        if (std::ferror(in.get()))
          problem = gzip_path + ": read error";
      }
      stream.next_in = input.data();
      stream.avail_in = static_cast<uInt>(n);
    }
    if (!problem.empty())
      break;
    if (status == Z_STREAM_END) {
      if (stream.avail_in == 0 && !more_input)
        break; // the end of the last member
      // Another member follows (a concatenated gzip file).
      if (inflateReset(&stream) != Z_OK) {
        problem = gzip_path + ": cannot inflate the next gzip member";
        break;
      }
    }
    stream.next_out = output.data();
    stream.avail_out = static_cast<uInt>(output.size());
    status = inflate(&stream, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END && !(status == Z_BUF_ERROR && more_input)) {
      problem = gzip_path + ": not a whole gzip stream" +
                (stream.msg ? std::string(": ") + stream.msg : "");
      break;
    }
    size_t n = output.size() - stream.avail_out;
    written += n;
    if (written > max_output) {
      problem = gzip_path + ": inflates to more than " + std::to_string(max_output) + " bytes";
      break;
    }
    if (n && std::fwrite(output.data(), 1, n, out.get()) != n)
      problem = out_path + ": write error";
    if (status != Z_STREAM_END && n == 0 && stream.avail_in == 0 && !more_input) {
      problem = gzip_path + ": the gzip stream is truncated";
      break;
    }
  }
  inflateEnd(&stream);
  if (problem.empty() && std::fflush(out.get()) != 0)
    problem = out_path + ": write error";
  if (!problem.empty())
    return llvm::createStringError(problem);
  return llvm::Error::success();
}

} // namespace dumpsyms
