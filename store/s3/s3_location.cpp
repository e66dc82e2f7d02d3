#include "store/s3/s3_location.h"

#include "common/limits/input_limits.h"
#include "store/s3/s3_answers.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Base64.h>
#include <llvm/Support/MD5.h>
#include <llvm/Support/SHA256.h>

namespace dumpsyms {

llvm::Expected<S3Location> S3Location::parse(const std::string& what, const std::string& url,
                                             const std::string& endpoint,
                                             const S3Credentials& credentials) {
  llvm::StringRef rest(url);
  if (!rest.consume_front("s3://") || rest.empty() || rest.starts_with("/"))
    return llvm::createStringError(what + " " + url + ": expected s3://BUCKET[/PREFIX]");
  auto [bucket, prefix] = rest.split('/');
  llvm::StringRef base_endpoint = llvm::StringRef(endpoint).rtrim('/');
  if (!base_endpoint.empty() && !base_endpoint.starts_with("http://") &&
      !base_endpoint.starts_with("https://"))
    return llvm::createStringError("--endpoint " + endpoint +
                                   ": expected an http:// or https:// URL");
  S3Location location;
  location.bucket_ = bucket.str();
  location.prefix_ = prefix.trim('/').str();
  std::string region = credentials.region.empty() ? "us-east-1" : credentials.region;
  location.signing_ = "aws:amz:" + region + ":s3";
  // Path-style under an endpoint (what MinIO and s3rver need); AWS's own
  // virtual-host style otherwise.
  location.base_ = base_endpoint.empty()
                       ? "https://" + location.bucket_ + ".s3." + region + ".amazonaws.com"
                       : base_endpoint.str() + "/" + urlEncode(location.bucket_);
  location.credentials_ = credentials.access_key + ":" + credentials.secret_key;
  return location;
}

std::string S3Location::describe() const {
  return "s3://" + bucket_ + (prefix_.empty() ? "" : "/" + prefix_);
}

std::string S3Location::key(const std::string& relative) const {
  return keyPrefix() + relative;
}

std::string S3Location::objectUrl(const std::string& relative) const {
  return base_ + "/" + urlEncodePath(key(relative));
}

std::string S3Location::listUrl(const std::string& key_prefix, const std::string& delimiter,
                                const std::string& continuation, unsigned max_keys) const {
  // In the order of their names: libcurl 7.88 signs the query as it is
  // written, and Signature V4's canonical query sorts it, so that a server
  // recomputing the signature of an unsorted query finds another one.
  std::string query;
  auto add = [&](const char* name, const std::string& value) {
    query += (query.empty() ? "?" : "&") + std::string(name) + "=" + urlEncode(value);
  };
  if (!continuation.empty())
    add("continuation-token", continuation);
  if (!delimiter.empty())
    add("delimiter", delimiter);
  add("list-type", "2");
  if (max_keys)
    add("max-keys", std::to_string(max_keys));
  add("prefix", key_prefix);
  return base_ + query;
}

HttpRequest S3Location::request(const std::string& method, const std::string& url,
                                llvm::StringRef body, unsigned timeout_seconds) const {
  HttpRequest r;
  r.method = method;
  r.url = url;
  r.timeout_seconds = timeout_seconds;
  r.aws_sigv4 = signing_;
  r.aws_credentials = credentials_;
  r.headers.push_back("x-amz-content-sha256: " + sha256Hex(body));
  r.body = body;
  return r;
}

std::string sha256Hex(llvm::StringRef data) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(data));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::string md5Hex(llvm::StringRef data) {
  llvm::MD5 md5;
  md5.update(data);
  llvm::MD5::MD5Result digest = md5.final();
  return digest.digest().str().str();
}

std::string md5Base64(llvm::StringRef data) {
  llvm::MD5 md5;
  md5.update(data);
  llvm::MD5::MD5Result digest = md5.final();
  return llvm::encodeBase64(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()));
}

llvm::Error S3Location::walkListing(
    const std::string& what, const std::string& key_prefix, const std::string& delimiter,
    const std::function<HttpResponse(const std::string& url)>& get,
    const std::function<std::optional<std::string>(llvm::StringRef body)>& page) const {
  std::string token;
  for (int pages = 0; pages < limits::kMaxListingPages; ++pages) {
    HttpResponse answer = get(listUrl(key_prefix, delimiter, token));
    if (answer.status != 200)
      return llvm::createStringError(s3Failure(what, answer));
    if (answer.body_over_limit)
      return llvm::createStringError(
          what + ": " +
          limits::overLimit("a page of the listing", limits::kMaxAnswerBody, "bytes"));
    std::optional<std::string> continuation = page(answer.body);
    if (!continuation)
      return llvm::Error::success();
    if (*continuation == token)
      return llvm::createStringError(what + ": the server gave the same continuation token twice");
    token = std::move(*continuation);
  }
  return llvm::createStringError(
      what + ": " + limits::overLimit("the listing", limits::kMaxListingPages, "pages"));
}

} // namespace dumpsyms
