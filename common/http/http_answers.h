// What HTTP servers send back, read without a socket: the status line and
// headers as libcurl hands them over, bodies, Retry-After, and the one-line
// description of a failure. Pure functions of the answer's bytes, so that
// the http_answers fuzz target and the unit tests reach all of them (the
// protocols' own answers: store/protocols/sym_upload_v2_answers.h,
// store/s3/s3_answers.h).
#pragma once

#include "common/http/http_client.h"

#include <ctime>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// One header line as libcurl delivers it ("Name: value\r\n"); a status line
// ("HTTP/1.1 200 OK") starts a new response (after a 100 Continue or a
// redirect) and forgets the headers before it.
void addHeaderLine(HttpResponse& response, llvm::StringRef line);
// Appends a piece of the body. False once the body is over
// limits::kMaxAnswerBody: the piece is dropped, `body_over_limit` is set and
// the transfer should stop.
bool addBodyBytes(HttpResponse& response, llvm::StringRef bytes);

// Connection errors, timeouts, 408, 429 and 5xx are worth another try.
bool isRetryable(const HttpResponse& response);
// Seconds from a Retry-After value (delta-seconds or an HTTP date), or none.
std::optional<double> retryAfterSeconds(const std::string& value, std::time_t now);

// "<what>: HTTP <status> <first line of the body>" or "<what>: <transport
// error>", on one printable line whatever the server sent.
std::string describeFailure(const std::string& what, const HttpResponse& response);

// The first line of a server's text, fit to quote in a one-line message:
// control characters (a terminal's escape sequences) become '?', and a long
// line is cut.
std::string quotableLine(llvm::StringRef text);
// " (the answer is over the limit ...: read no further)" when the body was
// cut at limits::kMaxAnswerBody, else "".
std::string answerCutNote(const HttpResponse& response);

} // namespace dumpsyms
