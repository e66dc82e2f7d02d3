// Breakpad's sym-upload-v2 (`sym_upload -p sym-upload-v2`), under /v1/:
//   GET  /v1/symbols/<debug_file>/<debug_id>:checkStatus -> {"status": "FOUND"|"MISSING"}
//   POST /v1/uploads:create (empty body)   -> {"uploadUrl": URL, "uploadKey": KEY}
//   PUT  URL (the file; 200)
//   POST /v1/uploads/<KEY>:complete (the symbol id) -> {"result": "OK"|"DUPLICATE_DATA"}
// The API key rides in `?key=`. Breakpad's client finds each answer's value
// with a regular expression that wants exactly `"name": "value"` (one space
// after the colon), so the answers below are written that way, and it sends
// the completion as JSON-like text with bare keys ("application/son"), which
// parseCompletion reads as well as real JSON.
#pragma once

#include "common/ids/debug_id.h"

#include <optional>
#include <string>

namespace dumpsyms::sym_upload_v2 {

inline constexpr const char* kPrefix = "/v1/";
inline constexpr const char* kStatusField = "status";
inline constexpr const char* kFound = "FOUND";
inline constexpr const char* kMissing = "MISSING";
inline constexpr const char* kUploadUrlField = "uploadUrl";
inline constexpr const char* kUploadKeyField = "uploadKey";
inline constexpr const char* kResultField = "result";
inline constexpr const char* kOk = "OK";
inline constexpr const char* kDuplicateData = "DUPLICATE_DATA";
inline constexpr const char* kBreakpadType = "BREAKPAD";
inline constexpr int kPutStored = 200; // what Breakpad's client wants for the PUT

// Paths, for a client (pass the parts percent-encoded) and a server.
std::string checkStatusPath(const std::string& debug_file, const std::string& debug_id);
std::string createPath();
std::string uploadPath(const std::string& key);
std::string completePath(const std::string& key);

// The same read back from a decoded path; none when it is not one.
struct SymbolId {
  std::string debug_file;
  DebugId debug_id;
};
std::optional<SymbolId> matchCheckStatusPath(const std::string& path);
bool isCreatePath(const std::string& path);
// The key of /v1/uploads/<KEY> and of /v1/uploads/<KEY>:complete.
std::optional<std::string> matchUploadPath(const std::string& path);
std::optional<std::string> matchCompletePath(const std::string& path);

// The answers' bodies.
std::string checkStatusAnswer(bool found);
std::string createAnswer(const std::string& upload_url, const std::string& key);
std::string completeAnswer(bool duplicate);

// The completion request: its body as JSON (our client), and read back
// from JSON or from Breakpad's bare-key text.
struct Completion {
  SymbolId symbol;
  std::string type; // symbol_upload_type; "" when not given
};
std::string completionBody(const SymbolId& symbol);
std::optional<Completion> parseCompletion(const std::string& body);

} // namespace dumpsyms::sym_upload_v2
