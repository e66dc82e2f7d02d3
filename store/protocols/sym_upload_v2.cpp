#include "store/protocols/sym_upload_v2.h"

#include "common/json/json_text.h"

#include <cctype>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace dumpsyms::sym_upload_v2 {

namespace {

constexpr llvm::StringLiteral kSymbols = "/v1/symbols/";
constexpr llvm::StringLiteral kUploads = "/v1/uploads/";
constexpr llvm::StringLiteral kCheckStatus = ":checkStatus";
constexpr llvm::StringLiteral kComplete = ":complete";

// A JSON string literal, escaped.
std::string quoted(const std::string& text) {
  return jsonText(llvm::json::Value(text));
}

// `"name": "value"`, the spacing Breakpad's client matches.
std::string member(const char* name, const std::string& value) {
  return quoted(name) + ": " + quoted(value);
}

bool isKey(llvm::StringRef key) {
  return !key.empty() && key.find_first_of("/:") == llvm::StringRef::npos;
}

// The string value of `name` in JSON or in Breakpad's bare-key text: the
// first `name` (quoted or not) followed by ':' and a double-quoted string.
// Backslash escapes are kept as the character they escape.
std::optional<std::string> stringValue(llvm::StringRef text, llvm::StringRef name) {
  size_t at = 0;
  while ((at = text.find(name, at)) != llvm::StringRef::npos) {
    size_t before = at;
    at += name.size();
    // The name must stand alone: not the tail or head of a longer word.
    auto wordChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    if ((before > 0 && wordChar(text[before - 1])) || (at < text.size() && wordChar(text[at])))
      continue;
    llvm::StringRef rest = text.drop_front(at);
    bool quoted_name = before > 0 && text[before - 1] == '"';
    if (quoted_name && !rest.consume_front("\""))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front(":"))
      continue;
    rest = rest.ltrim();
    if (!rest.consume_front("\""))
      return std::nullopt;
    std::string value;
    for (size_t i = 0; i < rest.size(); ++i) {
      char c = rest[i];
      if (c == '"')
        return value;
      if (c == '\\' && i + 1 < rest.size())
        c = rest[++i];
      value += c;
    }
    return std::nullopt; // unterminated
  }
  return std::nullopt;
}

} // namespace

std::string checkStatusPath(const std::string& debug_file, const std::string& debug_id) {
  return kSymbols.str() + debug_file + "/" + debug_id + kCheckStatus.str();
}

std::string createPath() {
  return "/v1/uploads:create";
}

std::string uploadPath(const std::string& key) {
  return kUploads.str() + key;
}

std::string completePath(const std::string& key) {
  return kUploads.str() + key + kComplete.str();
}

std::optional<SymbolId> matchCheckStatusPath(const std::string& path) {
  llvm::StringRef rest(path);
  if (!rest.consume_front(kSymbols) || !rest.consume_back(kCheckStatus))
    return std::nullopt;
  auto [file, id] = rest.split('/');
  if (file.empty() || id.empty() || id.contains('/'))
    return std::nullopt;
  return SymbolId{file.str(), DebugId(id.str())};
}

bool isCreatePath(const std::string& path) {
  return path == createPath();
}

std::optional<std::string> matchUploadPath(const std::string& path) {
  llvm::StringRef key(path);
  if (!key.consume_front(kUploads) || !isKey(key))
    return std::nullopt;
  return key.str();
}

std::optional<std::string> matchCompletePath(const std::string& path) {
  llvm::StringRef key(path);
  if (!key.consume_front(kUploads) || !key.consume_back(kComplete) || !isKey(key))
    return std::nullopt;
  return key.str();
}

std::string checkStatusAnswer(bool found) {
  return "{" + member(kStatusField, found ? kFound : kMissing) + "}\n";
}

std::string createAnswer(const std::string& upload_url, const std::string& key) {
  return "{" + member(kUploadUrlField, upload_url) + ", " + member(kUploadKeyField, key) + "}\n";
}

std::string completeAnswer(bool duplicate) {
  return "{" + member(kResultField, duplicate ? kDuplicateData : kOk) + "}\n";
}

std::string completionBody(const SymbolId& symbol) {
  llvm::json::Value completion =
      llvm::json::Object{{"symbol_id", llvm::json::Object{{"debug_file", symbol.debug_file},
                                                          {"debug_id", symbol.debug_id.str()}}},
                         {"symbol_upload_type", kBreakpadType}};
  return jsonText(completion);
}

std::optional<Completion> parseCompletion(const std::string& body) {
  auto file = stringValue(body, "debug_file");
  auto id = stringValue(body, "debug_id");
  if (!file || !id || file->empty() || id->empty())
    return std::nullopt;
  Completion completion{{*file, DebugId(*id)},
                        stringValue(body, "symbol_upload_type").value_or("")};
  return completion;
}

} // namespace dumpsyms::sym_upload_v2
