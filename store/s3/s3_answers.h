// What an S3 endpoint answers, read without a socket: ListObjectsV2 pages
// in their three shapes, its dates, and its XML errors.
#pragma once

#include "common/http/http_client.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// The text of every <tag>...</tag> in an XML answer.
std::vector<std::string> xmlValues(llvm::StringRef xml, llvm::StringRef tag);
struct S3ListingPage {
  std::vector<std::string> keys;
  std::optional<std::string> continuation; // set when there are more pages
};
// One ListObjectsV2 page.
S3ListingPage parseListingPage(llvm::StringRef xml);
// One ListObjectsV2 page asked with a delimiter (a directory's listing):
// the keys (<Contents><Key>) and the common prefixes
// (<CommonPrefixes><Prefix>), XML entities decoded.
struct S3DirectoryPage {
  std::vector<std::string> keys;
  std::vector<std::string> common_prefixes;
  std::optional<std::string> continuation; // set when there are more pages
};
S3DirectoryPage parseDirectoryListingPage(llvm::StringRef xml);
// One ListObjectsV2 page with what it says of each object: its key, size,
// ETag (quoted, as a HEAD gives it) and LastModified (ISO 8601, to seconds
// since the epoch; 0 when unreadable).
struct S3ListedObject {
  std::string key;
  uint64_t size = 0;
  std::string etag;
  int64_t mtime = 0;
};
struct S3ObjectsPage {
  std::vector<S3ListedObject> objects;
  std::optional<std::string> continuation; // set when there are more pages
};
S3ObjectsPage parseObjectListingPage(llvm::StringRef xml);
// "2026-12-05T04:10:00.000Z" -> seconds since the epoch; none otherwise.
std::optional<int64_t> parseIso8601Utc(llvm::StringRef text);
// "<what>: HTTP <status> <Code>: <Message>" from an S3 error answer, else
// describeFailure's line.
std::string s3Failure(const std::string& what, const HttpResponse& response);

} // namespace dumpsyms
