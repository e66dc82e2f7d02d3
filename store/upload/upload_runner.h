// symstore upload: a store to a symbol server. Checks every file before
// anything is sent, skips what the server (or the ledger) already has,
// uploads the rest with bounded concurrency and retries, and reports each
// file's outcome. Secrets never reach the output.
#pragma once

#include "store/upload/upload_protocol.h"

#include <string>

namespace dumpsyms {

struct UploadRunOptions {
  std::string store;
  UploadConfig config;
  unsigned jobs = 4;
  bool dry_run = false;
  bool verbose = false;
  bool quiet = false;
};

// Returns the exit status: 0 when every file is on the server, 1 otherwise.
int runUpload(const UploadRunOptions& options);

// `text` with every secret of `config` replaced by "***".
std::string redactSecrets(std::string text, const UploadConfig& config);

} // namespace dumpsyms
