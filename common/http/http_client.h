// The only code that speaks HTTP: one request, over libcurl, with its
// answer. No retries here (retry_policy.h), no protocol (the *_protocol files).
#pragma once

#include "common/limits/input_limits.h"

#include <cstdio>
#include <llvm/ADT/StringRef.h>
#include <map>
#include <string>
#include <vector>

namespace dumpsyms {

struct FormPart {
  std::string name;
  std::string value;    // a plain field, or
  llvm::StringRef data; // a file part's bytes (borrowed)
  std::string filename; // set for a file part
  std::string content_type;
};

struct HttpRequest {
  std::string method = "GET"; // GET, HEAD, PUT, POST
  std::string url;
  std::vector<std::string> headers; // "Name: value"
  llvm::StringRef body;             // PUT/POST bytes (borrowed)
  // A PUT body read from this file instead (from its start, on every try,
  // a piece at a time: a 1 GB debug file is never held in memory), of
  // `body_file_size` bytes.
  std::FILE* body_file = nullptr;
  uint64_t body_file_size = 0;
  std::vector<FormPart> form; // multipart/form-data instead of body
  // AWS Signature V4 by libcurl: "aws:amz:REGION:s3" and "KEY:SECRET".
  std::string aws_sigv4;
  std::string aws_credentials;
  // Connect timeout, and the longest the transfer may stall (no byte moving).
  unsigned timeout_seconds = 60;
  // The longest the answer may take once the request is sent, however it
  // trickles in.
  unsigned answer_seconds = limits::kMaxAnswerSeconds;
  // Follow up to five redirects (http and https only), as symbol servers
  // answer code-id lookups and downloads from a bucket.
  bool follow_redirects = false;
  // A download: the body of a 2xx answer goes to this file (emptied first,
  // so that a retry starts over) instead of `body`, up to `download_limit`
  // bytes; other answers' bodies go to `body` as usual.
  std::FILE* download = nullptr;
  uint64_t download_limit = 0;
};

struct HttpResponse {
  long status = 0;                            // 0: no answer (see transport_error)
  std::string transport_error;                // the connection failed, timed out, broke
  std::map<std::string, std::string> headers; // lower-case names
  std::string body;                           // at most limits::kMaxAnswerBody bytes of it
  bool body_over_limit = false;     // the server sent more: the transfer was stopped there
  uint64_t downloaded = 0;          // bytes written to the request's `download` file
  bool download_over_limit = false; // stopped at download_limit: the file is incomplete

  bool answered() const { return status != 0; }
  std::string header(const std::string& lower_case_name) const;
};

HttpResponse performRequest(const HttpRequest& request);

// A URL's query value, percent-encoded.
std::string urlEncode(llvm::StringRef text);
// A relative path for a URL: each component percent-encoded, the '/'
// between them kept.
std::string urlEncodePath(llvm::StringRef relative);

} // namespace dumpsyms
