// What symbol servers send back, read without a socket: every place the
// upload code looks into an answer (status line and headers as libcurl hands
// them over, bodies, Retry-After, Breakpad's sym-upload-v2 JSON, S3's XML
// listings and errors). Pure functions of the answer's bytes, so that the
// http_answers fuzz target and the unit tests reach all of them.
#pragma once

#include "upload/http_client.h"

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

// sym-upload-v2 (breakpad-v2). A string field of a JSON answer, or "" (not
// JSON, nested too deep, no such field, cut at the body limit).
std::string jsonStringField(const HttpResponse& answer, llvm::StringRef name);
enum class ServerSymbolStatus { Found, Missing, Unknown };
// GET .../v1/symbols/<file>/<id>:checkStatus
ServerSymbolStatus checkStatusAnswer(const HttpResponse& answer);
struct UploadSlot {
  std::string url, key;
};
// POST .../v1/uploads:create: where to PUT the file; none unless both given.
std::optional<UploadSlot> createUploadAnswer(const HttpResponse& answer);
enum class CompletionResult { Ok, Duplicate, Failed };
// POST .../v1/uploads/<key>:complete
CompletionResult completeUploadAnswer(const HttpResponse& answer);

// S3. The text of every <tag>...</tag> in an XML answer.
std::vector<std::string> xmlValues(llvm::StringRef xml, llvm::StringRef tag);
struct S3ListingPage {
  std::vector<std::string> keys;
  std::optional<std::string> continuation; // set when there are more pages
};
// One ListObjectsV2 page.
S3ListingPage parseListingPage(llvm::StringRef xml);
// One ListObjectsV2 page asked with a delimiter (a directory's listing):
// the keys (<Contents><Key>) and the common prefixes
// (<CommonPrefixes><Prefix>), XML entities decoded.
struct S3DirectoryPage {
  std::vector<std::string> keys;
  std::vector<std::string> common_prefixes;
  std::optional<std::string> continuation; // set when there are more pages
};
S3DirectoryPage parseDirectoryListingPage(llvm::StringRef xml);
// One ListObjectsV2 page with what it says of each object: its key, size,
// ETag (quoted, as a HEAD gives it) and LastModified (ISO 8601, to seconds
// since the epoch; 0 when unreadable).
struct S3ListedObject {
  std::string key;
  uint64_t size = 0;
  std::string etag;
  int64_t mtime = 0;
};
struct S3ObjectsPage {
  std::vector<S3ListedObject> objects;
  std::optional<std::string> continuation; // set when there are more pages
};
S3ObjectsPage parseObjectListingPage(llvm::StringRef xml);
// "2026-12-05T04:10:00.000Z" -> seconds since the epoch; none otherwise.
std::optional<int64_t> parseIso8601Utc(llvm::StringRef text);
// "<what>: HTTP <status> <Code>: <Message>" from an S3 error answer, else
// describeFailure's line.
std::string s3Failure(const std::string& what, const HttpResponse& response);

} // namespace dumpsyms
