// put: a static symbol store over HTTP (nginx's WebDAV module, Apache
// mod_dav, artifact repositories): HEAD each file, PUT it when absent.
#include "store/protocols/auth.h"
#include "store/protocols/store_put.h"
#include "store/upload/protocols.h"

namespace dumpsyms {

namespace {

class PutProtocol : public SingleFileProtocol {
public:
  explicit PutProtocol(const UploadConfig& config) : SingleFileProtocol(config) {}

  bool asksServer() const override { return true; }
  bool carriesBinaries() const override { return true; }

private:
  HttpRequest request(const std::string& method, const std::string& url) const {
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.timeout_seconds = config_.timeout_seconds;
    if (!config_.token.empty())
      r.headers.push_back(std::string(protocol_auth::kAuthorizationHeader) + ": " +
                          protocol_auth::kBearerPrefix + config_.token);
    return r;
  }

  UploadResult uploadOne(const StoredSymbolFile& file) override {
    UploadResult result;
    std::string url = joinUrl(config_.url, file.relative_path);
    unsigned tries = 0;
    HttpResponse head = performWithRetries(request("HEAD", url), config_.retry, &tries);
    result.requests += tries;
    if (head.status == 200) {
      result.outcome = UploadOutcome::Present;
      return result;
    }
    if (head.status != 404) {
      result.error = describeFailure(file.relative_path + ": HEAD " + url, head);
      return result;
    }
    auto body = makePutBody(file, config_.gzip);
    if (!body) {
      result.error = llvm::toString(body.takeError());
      return result;
    }
    HttpRequest put = request("PUT", url);
    body->attachTo(put);
    HttpResponse answer = performWithRetries(put, config_.retry, &tries);
    result.requests += tries;
    if (answer.status < 200 || answer.status >= 300) {
      result.error = describeFailure(file.relative_path + ": PUT " + url, answer);
      return result;
    }
    if (config_.verify) {
      HttpResponse check = performWithRetries(request("HEAD", url), config_.retry, &tries);
      result.requests += tries;
      if (check.status != 200) {
        result.error = describeFailure(
            file.relative_path + ": the server accepted the PUT but a HEAD after it says", check);
        return result;
      }
    }
    result.outcome = UploadOutcome::Uploaded;
    result.bytes_sent = body->size();
    return result;
  }
};

} // namespace

llvm::Expected<std::unique_ptr<UploadProtocol>> makePutProtocol(const UploadConfig& config) {
  if (llvm::Error error = requireHttpUrl(config))
    return error;
  return std::make_unique<PutProtocol>(config);
}

} // namespace dumpsyms
