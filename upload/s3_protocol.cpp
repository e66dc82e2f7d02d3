// s3: the store layout in an S3 bucket (AWS, MinIO, s3rver, ...), requests
// signed with AWS Signature V4 by libcurl. What the bucket holds is listed
// once (ListObjectsV2) instead of a HEAD per file: one request for many
// files, and an answer with a body that says why when access is refused.
#include "limits/input_limits.h"
#include "upload/protocols.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>
#include <mutex>
#include <set>

namespace dumpsyms {

namespace {

std::string sha256Hex(llvm::StringRef data) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(data));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

class S3Protocol : public SingleFileProtocol {
public:
  S3Protocol(const UploadConfig& config, std::string bucket, std::string prefix)
      : SingleFileProtocol(config), bucket_(std::move(bucket)), prefix_(std::move(prefix)) {
    std::string region = config.aws_region.empty() ? "us-east-1" : config.aws_region;
    signing_ = "aws:amz:" + region + ":s3";
    base_ = config.endpoint.empty()
                ? "https://" + bucket_ + ".s3." + region + ".amazonaws.com"
                : llvm::StringRef(config.endpoint).rtrim('/').str() + "/" + bucket_;
  }

  bool asksServer() const override { return true; }

  // Lists the bucket once; of its keys only those of `files` are kept, so
  // that what a server lists costs no more memory than the store holds.
  llvm::Error prepare(const std::vector<const StoredSymbolFile*>& files) override {
    std::set<std::string> wanted;
    for (const StoredSymbolFile* file : files)
      wanted.insert(keyPrefix() + file->relative_path);
    std::string listing = "listing s3://" + bucket_ + "/" + prefix_;
    std::string token;
    for (int page = 0; page < limits::kMaxListingPages; ++page) {
      std::string url = base_ + "?list-type=2&prefix=" + urlEncode(keyPrefix());
      if (!token.empty())
        url += "&continuation-token=" + urlEncode(token);
      HttpResponse answer = performWithRetries(request("GET", url, ""), config_.retry);
      if (answer.status != 200)
        return llvm::createStringError(s3Failure(listing, answer));
      if (answer.body_over_limit)
        return llvm::createStringError(
            listing + ": " +
            limits::overLimit("a page of the listing", limits::kMaxAnswerBody, "bytes"));
      S3ListingPage parsed = parseListingPage(answer.body);
      for (std::string& key : parsed.keys)
        if (wanted.count(key))
          present_.insert(std::move(key));
      if (!parsed.continuation)
        return llvm::Error::success();
      if (*parsed.continuation == token)
        return llvm::createStringError(listing +
                                       ": the server gave the same continuation token twice");
      token = std::move(*parsed.continuation);
    }
    return llvm::createStringError(
        listing + ": " + limits::overLimit("the listing", limits::kMaxListingPages, "pages"));
  }

  std::string serverName() const override { return "s3-" + bucket_; }

private:
  std::string keyPrefix() const { return prefix_.empty() ? "" : prefix_ + "/"; }

  HttpRequest request(const std::string& method, const std::string& url,
                      llvm::StringRef body) const {
    HttpRequest r;
    r.method = method;
    r.url = url;
    r.timeout_seconds = config_.timeout_seconds;
    r.aws_sigv4 = signing_;
    r.aws_credentials = config_.aws_access_key + ":" + config_.aws_secret_key;
    // The payload's hash, signed with the request (S3 requires the header).
    r.headers.push_back("x-amz-content-sha256: " + sha256Hex(body));
    r.body = body;
    return r;
  }

  UploadResult uploadOne(const StoredSymbolFile& file) override {
    UploadResult result;
    std::string key = keyPrefix() + file.relative_path;
    if (present_.count(key)) {
      result.outcome = UploadOutcome::Present;
      return result;
    }
    auto body = readBody(file, config_.gzip);
    if (!body) {
      result.error = llvm::toString(body.takeError());
      return result;
    }
    std::string url = joinUrl(base_, key);
    HttpRequest put = request("PUT", url, *body);
    put.headers.push_back("Content-Type: text/plain");
    if (config_.gzip)
      put.headers.push_back("Content-Encoding: gzip");
    unsigned tries = 0;
    HttpResponse answer = performWithRetries(put, config_.retry, &tries);
    result.requests += tries;
    if (answer.status < 200 || answer.status >= 300) {
      result.error = s3Failure(file.relative_path + ": PUT s3://" + bucket_ + "/" + key, answer);
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

  std::string bucket_, prefix_, signing_, base_;
  std::set<std::string> present_; // filled by prepare(), read-only after
};

} // namespace

llvm::Expected<std::unique_ptr<UploadProtocol>> makeS3Protocol(const UploadConfig& config) {
  llvm::StringRef url(config.url);
  if (!url.consume_front("s3://") || url.empty())
    return llvm::createStringError("--to " + config.url + ": expected s3://BUCKET[/PREFIX]");
  auto [bucket, prefix] = url.split('/');
  if (config.aws_access_key.empty() || config.aws_secret_key.empty())
    return llvm::createStringError(
        "s3 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment");
  return std::make_unique<S3Protocol>(config, bucket.str(), prefix.trim('/').str());
}

} // namespace dumpsyms
