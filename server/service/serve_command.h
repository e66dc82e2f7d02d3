// `symstore serve STORE`: the store as a symbol server for every consumer
// (server/downloads/), with uploads (server/ingest/), tokens, metrics and an
// access log, until SIGTERM or SIGINT, which let the requests in flight
// finish.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ServeOptions {
  std::string store; // a directory, or s3://BUCKET[/PREFIX]
  std::string listen = "127.0.0.1:8080";
  std::string tokens_file;        // --tokens
  bool private_downloads = false; // --private
  bool replace = false;           // --replace
  std::string endpoint;           // --endpoint (s3), else AWS_ENDPOINT_URL
  unsigned threads = 0;           // --threads, 0: one per core
  std::string cache_dir;          // --cache-dir
  std::string max_upload;         // --max-upload SIZE
  unsigned timeout_seconds = 30;  // --timeout: an idle client is dropped
  bool quiet = false;             // -q: no access log

  // The crash inbox (--crashes [CRASH_STORE]).
  bool crashes = false;
  std::string crash_store;     // "" : STORE/.crashes
  std::string signature_rules; // --signature-rules DIR
  std::string crash_rate;      // --crash-rate N/min
  std::string max_crash;       // --max-crash SIZE (default 25M)
  std::vector<std::string> drop_annotations{"Email", "URL", "Comments"}; // --drop-annotations
  bool crashes_public = false;                                           // --crashes-public
  unsigned crash_retention_days = 0;                                     // --crash-retention DAYS
  std::string crash_max_bytes;                                           // --crash-max-bytes SIZE
};

// 512, 64K, 100M, 2G (powers of 1024); none if malformed.
std::optional<uint64_t> parseByteSize(const std::string& text);

// Runs the server; the exit status.
int runServe(const ServeOptions& options);

} // namespace dumpsyms
