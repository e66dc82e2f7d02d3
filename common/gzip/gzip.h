// gzip (RFC 1952), the one module every gzip of the tools goes through:
// request bodies sent with Content-Encoding: gzip and the gzip-coded copies
// the server keeps (one compressor), S3 objects stored gzip-coded and
// uploads that arrive so (one inflater). LLVM's zlib wrapper writes the
// zlib format, which HTTP's gzip coding is not.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// One gzip member of `data`, deflated by ISA-L at its fastest level with a
// fixed header (no name, no time): one input always gives the same bytes.
llvm::Expected<std::string> gzipCompress(llvm::StringRef data);
// The same of `length` bytes of `in` from `offset` (read with pread; the
// descriptor stays the caller's), written to `out` a piece at a time.
llvm::Error gzipCompressRange(int in, uint64_t offset, uint64_t length, int out);

// Why gzip data did not inflate: the common wing's gzip error. Callers say
// it in their own words (an HTTP status and line, a file's name).
class GunzipError : public llvm::ErrorInfo<GunzipError> {
public:
  enum class Problem {
    ReadFailed,    // the input could not be read
    NotGzip,       // not gzip data, or damaged
    Truncated,     // the input ends before its gzip stream does
    TrailingBytes, // bytes follow the (single) member
    OverLimit,     // it inflates past the rules' max_output
    WriteFailed,   // the sink refused the bytes
  };
  static char ID;

  GunzipError(Problem problem, std::string detail)
      : problem_(problem), detail_(std::move(detail)) {}
  Problem problem() const { return problem_; }
  // What zlib or the system said, or the sink's message; may be empty.
  const std::string& detail() const { return detail_; }
  void log(llvm::raw_ostream& out) const override;
  std::error_code convertToErrorCode() const override;

private:
  Problem problem_;
  std::string detail_;
};

struct GunzipRules {
  uint64_t max_output = std::numeric_limits<uint64_t>::max();
  // RFC 1952 allows a file of several members (what `cat a.gz b.gz`
  // makes); an HTTP body is one.
  bool concatenated_members = false;
};

// Where inflated bytes go, a piece at a time.
using GunzipSink = std::function<llvm::Error(llvm::StringRef bytes)>;

// Inflates the gzip data read from `in` (from where it stands to its end)
// into `out`, never holding more than a piece of either in memory.
llvm::Error gunzip(int in, const GunzipSink& out, const GunzipRules& rules);

// The file at `gzip_path` inflated into `out_path` (created or emptied);
// errors name the file at fault ("PATH: the gzip stream is truncated").
llvm::Error gunzipFile(const std::string& gzip_path, const std::string& out_path,
                       const GunzipRules& rules);

} // namespace dumpsyms
