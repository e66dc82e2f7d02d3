// tecken: Mozilla's symbol server. Files go in bulk: a zip whose entries
// are <name>/<ID>/<name>.sym, POSTed as multipart/form-data to URL/upload/
// with an Auth-Token header; 201 means every file in it was taken. The
// server cannot be asked what it has: the runner keeps a ledger, and packs
// batches no larger than --max-batch.
#include "store/protocols/auth.h"
#include "store/protocols/tecken.h"
#include "store/upload/protocols.h"
#include "store/upload/zip_archive.h"

namespace dumpsyms {

namespace {

class TeckenProtocol : public UploadProtocol {
public:
  explicit TeckenProtocol(const UploadConfig& config) : UploadProtocol(config) {}

  bool asksServer() const override { return false; }
  bool packsBatches() const override { return true; }

  std::vector<UploadResult> upload(const std::vector<const StoredSymbolFile*>& files) override {
    std::vector<UploadResult> results(files.size());
    auto failAll = [&](const std::string& error) {
      for (UploadResult& result : results)
        result.error = error;
      return results;
    };
    std::vector<std::string> bodies;
    bodies.reserve(files.size());
    std::vector<std::pair<std::string, llvm::StringRef>> entries;
    for (const StoredSymbolFile* file : files) {
      auto body = readBody(*file, false);
      if (!body)
        return failAll(llvm::toString(body.takeError()));
      bodies.push_back(std::move(*body));
      entries.push_back({file->relative_path, bodies.back()});
    }
    auto zip = buildZipArchive(entries);
    if (!zip)
      return failAll(llvm::toString(zip.takeError()));
    std::string what = files.size() == 1 ? files.front()->relative_path
                                         : std::to_string(files.size()) + " files from " +
                                               files.front()->relative_path;
    if (zip->size() > config_.max_batch_bytes)
      return failAll(what + ": compressed to " + std::to_string(zip->size()) +
                     " bytes, more than --max-batch allows");
    HttpRequest post;
    post.method = "POST";
    post.url = tecken::uploadUrl(config_.url);
    post.timeout_seconds = config_.timeout_seconds;
    if (!config_.token.empty())
      post.headers.push_back(std::string(protocol_auth::kAuthTokenHeader) + ": " + config_.token);
    post.form = {{tecken::kZipField, "", *zip, tecken::kZipField, tecken::kZipContentType}};
    unsigned tries = 0;
    HttpResponse answer = performWithRetries(post, config_.retry, &tries);
    if (answer.status < 200 || answer.status >= 300)
      return failAll(describeFailure(what + ": POST " + post.url, answer));
    for (size_t i = 0; i < files.size(); ++i) {
      results[i].outcome = UploadOutcome::Uploaded;
      results[i].bytes_sent = bodies[i].size();
      results[i].requests = i == 0 ? tries : 0;
    }
    return results;
  }
};

} // namespace

llvm::Expected<std::unique_ptr<UploadProtocol>> makeTeckenProtocol(const UploadConfig& config) {
  if (llvm::Error error = requireHttpUrl(config))
    return error;
  return std::make_unique<TeckenProtocol>(config);
}

} // namespace dumpsyms
