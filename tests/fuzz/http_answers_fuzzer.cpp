// A symbol server's answer, as a server sends it: a status line, header
// lines, a blank line, the body. Headers go through the libcurl header
// callback's parser and the body through the body callback's (in pieces of
// a few sizes), then every reading of an answer the upload protocols make:
// retrying and Retry-After, the failure line, sym-upload-v2's JSON answers,
// S3's listing pages and error documents.
#include "common/http/http_answers.h"
#include "common/limits/bounded_json.h"
#include "store/protocols/sym_upload_v2_answers.h"
#include "store/s3/s3_answers.h"
#include "tests/fuzz/fuzz_targets.h"

namespace dumpsyms::fuzz {

namespace {

// "HTTP/1.1 503 ..." -> 503 (libcurl's part, not the project's: here only
// to give the readings below a status); 0 (no answer) otherwise.
long statusOf(llvm::StringRef line) {
  llvm::StringRef code = line.split(' ').second.take_front(3);
  unsigned status = 0;
  return line.starts_with("HTTP/") && !code.getAsInteger(10, status) ? long(status) : 0;
}

} // namespace

int httpAnswers(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  HttpResponse answer;
  llvm::StringRef rest = input;
  bool first = true;
  while (!rest.empty()) {
    size_t end = rest.find('\n');
    llvm::StringRef line = rest.take_front(end == llvm::StringRef::npos ? rest.size() : end + 1);
    rest = rest.drop_front(line.size());
    if (first)
      answer.status = statusOf(line);
    first = false;
    if (line.trim("\r\n").empty())
      break; // the body follows
    addHeaderLine(answer, line);
  }
  if (!answer.status)
    answer.transport_error = input.take_front(64).str();
  // The body in pieces, as the network delivers it.
  for (size_t piece = 1; !rest.empty() && answer.status; piece = piece * 3 + 1) {
    llvm::StringRef bytes = rest.take_front(piece);
    rest = rest.drop_front(bytes.size());
    if (!addBodyBytes(answer, bytes))
      break;
  }

  (void)isRetryable(answer);
  (void)retryAfterSeconds(answer.header("retry-after"), 784111777);
  (void)describeFailure("GET https://symbols.example/x", answer);
  (void)checkStatusAnswer(answer);
  (void)createUploadAnswer(answer);
  (void)completeUploadAnswer(answer);
  (void)parseListingPage(answer.body);
  (void)parseDirectoryListingPage(answer.body);
  (void)parseObjectListingPage(answer.body);
  (void)s3Failure("PUT s3://bucket/key", answer);
  if (auto parsed = parseBoundedJson(answer.body); !parsed)
    llvm::consumeError(parsed.takeError());
  return 0;
}

} // namespace dumpsyms::fuzz
