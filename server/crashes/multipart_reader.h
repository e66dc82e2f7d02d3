// multipart/form-data (RFC 7578, RFC 2046's delimiters) taken apart as the
// bytes stream in, a part's bytes handed on as they arrive: a crash body
// sent gzip-coded is parsed while it inflates, never held whole. Our own
// parser because libmicrohttpd's post processor reads only from a
// connection, and a gzip-coded body must be inflated first.
#pragma once

#include "common/limits/input_limits.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>

namespace dumpsyms {

// Why a body is not a well-formed form; the names are Socorro's
// `Discarded=malformed_<reason>` reasons where it has one.
class MultipartError : public llvm::ErrorInfo<MultipartError> {
public:
  static char ID;
  // "no_boundary", "invalid_payload_structure", "truncated", "bad_part_headers"
  MultipartError(std::string reason, std::string detail)
      : reason_(std::move(reason)), detail_(std::move(detail)) {}
  const std::string& reason() const { return reason_; }
  void log(llvm::raw_ostream& out) const override;
  std::error_code convertToErrorCode() const override;

private:
  std::string reason_, detail_;
};

// The boundary parameter of a multipart/form-data Content-Type; none when
// the type is another or names no usable boundary.
std::optional<std::string> multipartBoundary(const std::string& content_type);

struct PartHeaders {
  std::string name;                    // Content-Disposition's name
  std::optional<std::string> filename; // set for a file part
  std::string content_type;            // "" when the part has none (Breakpad's text parts)
};

// What receives the parts; an error it returns stops the parse and is the
// parse's error.
class MultipartHandler {
public:
  virtual ~MultipartHandler() = default;
  virtual llvm::Error beginPart(const PartHeaders& headers) = 0;
  virtual llvm::Error partData(llvm::StringRef bytes) = 0;
  virtual llvm::Error endPart() = 0;
};

class MultipartReader {
public:
  MultipartReader(const std::string& boundary, MultipartHandler& handler);

  // The next bytes of the body.
  llvm::Error feed(llvm::StringRef bytes);
  // The body ended: an error unless the closing delimiter was read.
  llvm::Error finish();

private:
  enum class State { Preamble, AfterDelimiter, Headers, Body, Done };

  llvm::Error step(bool& progressed);
  llvm::Error parseHeaders(llvm::StringRef block);

  std::string delimiter_; // "\r\n--" + boundary
  MultipartHandler& handler_;
  State state_ = State::Preamble;
  std::string buffer_;
  uint64_t parts_ = 0;
};

} // namespace dumpsyms
