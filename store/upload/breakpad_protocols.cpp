// Breakpad's two upload protocols, as its sym_upload speaks them.
//
// breakpad-v1: one multipart/form-data POST per file, with the form fields
// sym_upload sends (os, cpu, debug_file, code_file, debug_identifier) and
// the file as "symbol_file"; 200 means stored. The server cannot be asked
// what it has: the runner keeps a ledger.
//
// breakpad-v2 (sym-upload-v2): GET .../v1/symbols/<file>/<id>:checkStatus,
// then POST .../v1/uploads:create for a signed URL, PUT the file there, and
// POST .../v1/uploads/<key>:complete. The API key goes in ?key=. Where
// sym_upload sends the completion body as JSON-like text labelled
// "application/son", we send the same fields as JSON.
//
// Paths, field names and bodies: store/protocols/, which the server
// (server/ingest/) reads them with.
#include "store/protocols/auth.h"
#include "store/protocols/breakpad_v1.h"
#include "store/protocols/sym_upload_v2.h"
#include "store/protocols/sym_upload_v2_answers.h"
#include "store/upload/protocols.h"

namespace dumpsyms {

namespace {

class BreakpadV1Protocol : public SingleFileProtocol {
public:
  explicit BreakpadV1Protocol(const UploadConfig& config) : SingleFileProtocol(config) {}

  bool asksServer() const override { return false; }

private:
  UploadResult uploadOne(const StoredSymbolFile& file) override {
    UploadResult result;
    auto body = readBody(file, false);
    if (!body) {
      result.error = llvm::toString(body.takeError());
      return result;
    }
    HttpRequest post;
    post.method = "POST";
    post.url = config_.url;
    post.timeout_seconds = config_.timeout_seconds;
    if (!config_.token.empty())
      post.headers.push_back(std::string(protocol_auth::kAuthorizationHeader) + ": " +
                             protocol_auth::kBearerPrefix + config_.token);
    std::string sym_name = file.relative_path.substr(file.relative_path.rfind('/') + 1);
    // As sym_upload fills them: the code file is the MODULE line's name too.
    breakpad_v1::FormFacts facts{file.os, file.cpu, file.debug_file, file.debug_file,
                                 file.debug_id};
    for (auto& [name, value] : breakpad_v1::plainFields(facts))
      post.form.push_back({name, value, {}, "", ""});
    post.form.push_back(
        {breakpad_v1::kSymbolFileField, "", *body, sym_name, "application/octet-stream"});
    unsigned tries = 0;
    HttpResponse answer = performWithRetries(post, config_.retry, &tries);
    result.requests = tries;
    if (answer.status != breakpad_v1::kStored) {
      result.error = describeFailure(file.relative_path + ": POST " + config_.url, answer);
      return result;
    }
    result.outcome = UploadOutcome::Uploaded;
    result.bytes_sent = body->size();
    return result;
  }
};

class BreakpadV2Protocol : public SingleFileProtocol {
public:
  explicit BreakpadV2Protocol(const UploadConfig& config)
      : SingleFileProtocol(config), base_(llvm::StringRef(config.url).rtrim('/').str()) {}

  bool asksServer() const override { return true; }

private:
  std::string withKey(const std::string& url) const {
    return config_.token.empty()
               ? url
               : url + "?" + protocol_auth::kKeyArgument + "=" + urlEncode(config_.token);
  }

  HttpRequest request(const std::string& method, const std::string& url) const {
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.timeout_seconds = config_.timeout_seconds;
    return r;
  }

  UploadResult uploadOne(const StoredSymbolFile& file) override {
    UploadResult result;
    unsigned tries = 0;
    std::string where = file.relative_path + ": ";

    HttpResponse status = performWithRetries(
        request("GET",
                withKey(base_ + sym_upload_v2::checkStatusPath(urlEncode(file.debug_file),
                                                               urlEncode(file.debug_id.str())))),
        config_.retry, &tries);
    result.requests += tries;
    ServerSymbolStatus state = checkStatusAnswer(status);
    if (state == ServerSymbolStatus::Found) {
      result.outcome = UploadOutcome::Present;
      return result;
    }
    if (state != ServerSymbolStatus::Missing) {
      result.error = describeFailure(where + "checkStatus", status);
      return result;
    }

    HttpRequest create = request("POST", withKey(base_ + sym_upload_v2::createPath()));
    HttpResponse created = performWithRetries(create, config_.retry, &tries);
    result.requests += tries;
    std::optional<UploadSlot> slot = createUploadAnswer(created);
    if (!slot) {
      result.error = describeFailure(where + "uploads:create", created);
      return result;
    }

    auto body = readBody(file, config_.gzip);
    if (!body) {
      result.error = llvm::toString(body.takeError());
      return result;
    }
    HttpRequest put = request("PUT", slot->url);
    put.body = *body;
    if (config_.gzip)
      put.headers.push_back("Content-Encoding: gzip");
    HttpResponse sent = performWithRetries(put, config_.retry, &tries);
    result.requests += tries;
    if (sent.status < 200 || sent.status >= 300) {
      result.error = describeFailure(where + "PUT to the upload URL", sent);
      return result;
    }

    std::string text = sym_upload_v2::completionBody({file.debug_file, file.debug_id});
    HttpRequest complete =
        request("POST", withKey(base_ + sym_upload_v2::completePath(urlEncode(slot->key))));
    complete.body = text;
    complete.headers.push_back("Content-Type: application/json");
    HttpResponse completed = performWithRetries(complete, config_.retry, &tries);
    result.requests += tries;
    CompletionResult outcome = completeUploadAnswer(completed);
    if (outcome == CompletionResult::Ok) {
      result.outcome = UploadOutcome::Uploaded;
      result.bytes_sent = body->size();
    } else if (outcome == CompletionResult::Duplicate) {
      result.outcome = UploadOutcome::Present;
    } else {
      result.error = describeFailure(where + "uploads:complete", completed);
    }
    return result;
  }

  std::string base_;
};

} // namespace

llvm::Expected<std::unique_ptr<UploadProtocol>> makeBreakpadV1Protocol(const UploadConfig& config) {
  if (llvm::Error error = requireHttpUrl(config))
    return error;
  return std::make_unique<BreakpadV1Protocol>(config);
}

llvm::Expected<std::unique_ptr<UploadProtocol>> makeBreakpadV2Protocol(const UploadConfig& config) {
  if (llvm::Error error = requireHttpUrl(config))
    return error;
  return std::make_unique<BreakpadV2Protocol>(config);
}

} // namespace dumpsyms
