// Where an S3 store lives and how a request to it is signed: one
// description shared by `symstore upload --protocol s3` (the client) and the
// S3 store backend of `symstore serve`, so that both address the same keys
// the same way (path-style URLs under an endpoint, or AWS's virtual-host
// URLs) and sign them alike (AWS Signature V4 by libcurl).
#pragma once

#include "common/http/http_client.h"

#include <functional>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct S3Credentials {
  std::string access_key, secret_key, region; // region "" -> us-east-1
};

class S3Location {
public:
  // `url` is s3://BUCKET[/PREFIX]; `endpoint` an http(s) URL for a
  // path-style server (MinIO, s3rver, ...), or "" for AWS itself. An error
  // names `what` (the flag or argument the URL came from).
  static llvm::Expected<S3Location> parse(const std::string& what, const std::string& url,
                                          const std::string& endpoint,
                                          const S3Credentials& credentials);

  const std::string& bucket() const { return bucket_; }
  const std::string& prefix() const { return prefix_; }
  // "s3://bucket/prefix" for messages.
  std::string describe() const;
  // The key of a store-relative path: PREFIX/relative.
  std::string key(const std::string& relative) const;
  // The key prefix every object of the store starts with: "PREFIX/" or "".
  std::string keyPrefix() const { return prefix_.empty() ? "" : prefix_ + "/"; }
  // The URL of one object.
  std::string objectUrl(const std::string& relative) const;
  // A ListObjectsV2 page of keys starting with `key_prefix`, grouped at
  // `delimiter` when it is not empty, at most `max_keys` of them (0: the
  // server's page size).
  std::string listUrl(const std::string& key_prefix, const std::string& delimiter,
                      const std::string& continuation, unsigned max_keys = 0) const;

  // Walks the ListObjectsV2 listing of `key_prefix` (grouped at
  // `delimiter` when not empty) page by page: `get` performs a signed GET
  // of a page's URL, `page` reads its body and returns the continuation
  // token, none after the last page. An error names `what` for a refused
  // or oversized page, a token given twice, or a listing longer than
  // limits::kMaxListingPages pages: never a listing silently cut short.
  llvm::Error
  walkListing(const std::string& what, const std::string& key_prefix, const std::string& delimiter,
              const std::function<HttpResponse(const std::string& url)>& get,
              const std::function<std::optional<std::string>(llvm::StringRef body)>& page) const;

  // A signed request; `body` is borrowed and its SHA-256 signed with it (S3
  // requires the x-amz-content-sha256 header).
  HttpRequest request(const std::string& method, const std::string& url, llvm::StringRef body,
                      unsigned timeout_seconds) const;

private:
  std::string bucket_, prefix_, base_, signing_, credentials_;
};

// Lower-case hex of the SHA-256 and of the MD5 of `data`, and base64 of its
// MD5 (Content-MD5).
std::string sha256Hex(llvm::StringRef data);
std::string md5Hex(llvm::StringRef data);
std::string md5Base64(llvm::StringRef data);

} // namespace dumpsyms
