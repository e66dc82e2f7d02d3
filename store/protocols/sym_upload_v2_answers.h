// What a sym-upload-v2 (breakpad-v2) server answers, read without a socket:
// the client's half of the protocol store/protocols/sym_upload_v2.h
// describes (the server writes these answers in server/ingest).
#pragma once

#include "common/http/http_client.h"

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

// A string field of a JSON answer, or "" (not
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

} // namespace dumpsyms
