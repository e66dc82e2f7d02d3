// s3: the store layout in an S3 bucket (AWS, MinIO, s3rver, ...), requests
// signed with AWS Signature V4 by libcurl. What the bucket holds is listed
// once (ListObjectsV2) instead of a HEAD per file: one request for many
// files, and an answer with a body that says why when access is refused.
#include "store/s3/s3_answers.h"
#include "store/s3/s3_location.h"
#include "store/upload/protocols.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>
#include <set>
#include <vector>

namespace dumpsyms {

namespace {

// The SHA-256 a signed PUT of a file declares, read a piece at a time.
llvm::Expected<std::string> fileSha256Hex(const FileBody& body) {
  llvm::SHA256 hash;
  std::vector<uint8_t> piece(1 << 20);
  std::rewind(body.file.get());
  uint64_t read = 0;
  while (size_t n = std::fread(piece.data(), 1, piece.size(), body.file.get())) {
    hash.update(llvm::ArrayRef<uint8_t>(piece.data(), n));
    read += n;
  }
  if (std::ferror(body.file.get()) || read != body.size)
    return llvm::createStringError("cannot read it whole");
  auto digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

class S3Protocol : public SingleFileProtocol {
public:
  S3Protocol(const UploadConfig& config, S3Location location)
      : SingleFileProtocol(config), location_(std::move(location)) {}

  bool asksServer() const override { return true; }
  bool carriesBinaries() const override { return true; }

  // Lists the bucket once; of its keys only those of `files` are kept, so
  // that what a server lists costs no more memory than the store holds.
  llvm::Error prepare(const std::vector<const StoredSymbolFile*>& files) override {
    std::set<std::string> wanted;
    for (const StoredSymbolFile* file : files)
      wanted.insert(location_.key(file->relative_path));
    return location_.walkListing(
        "listing s3://" + location_.bucket() + "/" + location_.prefix(), location_.keyPrefix(), "",
        [&](const std::string& url) {
          return performWithRetries(request("GET", url, ""), config_.retry);
        },
        [&](llvm::StringRef body) {
          S3ListingPage parsed = parseListingPage(body);
          for (std::string& key : parsed.keys)
            if (wanted.count(key))
              present_.insert(std::move(key));
          return parsed.continuation;
        });
  }

  std::string serverName() const override { return "s3-" + location_.bucket(); }

private:
  HttpRequest request(const std::string& method, const std::string& url,
                      llvm::StringRef body) const {
    return location_.request(method, url, body, config_.timeout_seconds);
  }

  UploadResult uploadOne(const StoredSymbolFile& file) override {
    UploadResult result;
    std::string key = location_.key(file.relative_path);
    if (present_.count(key)) {
      result.outcome = UploadOutcome::Present;
      return result;
    }
    std::string url = location_.objectUrl(file.relative_path);
    auto body = makePutBody(file, config_.gzip);
    if (!body) {
      result.error = llvm::toString(body.takeError());
      return result;
    }
    // The signature covers the body's SHA-256: of the text, or of a
    // streamed file in a first pass over it.
    HttpRequest put = request("PUT", url, body->text);
    if (body->streamed()) {
      auto hash = fileSha256Hex(body->stored);
      if (!hash) {
        result.error = file.path + ": " + llvm::toString(hash.takeError());
        return result;
      }
      for (std::string& header : put.headers)
        if (llvm::StringRef(header).starts_with("x-amz-content-sha256:"))
          header = "x-amz-content-sha256: " + *hash;
    }
    body->attachTo(put);
    unsigned tries = 0;
    HttpResponse answer = performWithRetries(put, config_.retry, &tries);
    result.requests += tries;
    if (answer.status < 200 || answer.status >= 300) {
      result.error =
          s3Failure(file.relative_path + ": PUT s3://" + location_.bucket() + "/" + key, answer);
      return result;
    }
    if (config_.verify) {
      HttpResponse check = performWithRetries(request("HEAD", url, ""), config_.retry, &tries);
      result.requests += tries;
      if (check.status != 200) {
        result.error = s3Failure(file.relative_path + ": a HEAD after the PUT says", check);
        return result;
      }
    }
    result.outcome = UploadOutcome::Uploaded;
    result.bytes_sent = body->size();
    return result;
  }

  S3Location location_;
  std::set<std::string> present_; // filled by prepare(), read-only after
};

} // namespace

llvm::Expected<std::unique_ptr<UploadProtocol>> makeS3Protocol(const UploadConfig& config) {
  auto location = S3Location::parse(
      "--to", config.url, config.endpoint,
      S3Credentials{config.aws_access_key, config.aws_secret_key, config.aws_region});
  if (!location)
    return location.takeError();
  if (config.aws_access_key.empty() || config.aws_secret_key.empty())
    return llvm::createStringError(
        "s3 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
  return std::make_unique<S3Protocol>(config, std::move(*location));
}

} // namespace dumpsyms
