// The ways a symbol file reaches a server. Each protocol turns store files
// into requests and requests' answers into outcomes; retries, concurrency
// and bookkeeping are the runner's (upload_runner.h).
#pragma once

#include "common/http/http_answers.h"
#include "common/http/retry_policy.h"
#include "store/layout/store_listing.h"

#include <cstdint>
#include <cstdio>
#include <llvm/Support/Error.h>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

struct UploadConfig {
  std::string protocol = "put"; // put, s3, breakpad-v1, breakpad-v2, tecken
  std::string url;              // --to
  std::string endpoint;         // --endpoint (s3)
  std::string token;            // SYMSTORE_TOKEN
  std::string aws_access_key, aws_secret_key, aws_region; // AWS_*
  unsigned timeout_seconds = 60;
  RetryPolicy retry;
  bool gzip = false;
  bool verify = false;
  bool binaries = true; // put, s3: also the kept binaries and .build-id entries (--no-binaries)
  uint64_t max_batch_bytes = 256ull << 20; // tecken
};

enum class UploadOutcome { Uploaded, Present, Failed };

struct UploadResult {
  UploadOutcome outcome = UploadOutcome::Failed;
  std::string error; // for Failed: the file, the request and the server's answer
  uint64_t bytes_sent = 0;
  unsigned requests = 0;
};

class UploadProtocol {
public:
  virtual ~UploadProtocol() = default;

  // Whether the server can be asked what it has; if not, the runner keeps a
  // ledger of what the server confirmed.
  virtual bool asksServer() const = 0;
  // Whether kept binaries and .build-id entries can go this way (put, s3:
  // the store's own layout); the other protocols carry .sym files only.
  virtual bool carriesBinaries() const { return false; }
  // Files that may go in one request (tecken packs many); 1 for the others.
  virtual bool packsBatches() const { return false; }
  // Once before any upload of `files` (s3 lists the bucket). An error fails
  // every file.
  virtual llvm::Error prepare(const std::vector<const StoredSymbolFile*>& files) {
    (void)files;
    return llvm::Error::success();
  }
  // Uploads `files` (one, unless packsBatches()), asking first where it can;
  // one result per file.
  virtual std::vector<UploadResult> upload(const std::vector<const StoredSymbolFile*>& files) = 0;
  // Names the server in the ledger's file name.
  virtual std::string serverName() const;

protected:
  explicit UploadProtocol(const UploadConfig& config) : config_(config) {}
  const UploadConfig& config_;
};

// A protocol that sends files one at a time.
class SingleFileProtocol : public UploadProtocol {
public:
  std::vector<UploadResult> upload(const std::vector<const StoredSymbolFile*>& files) final;

protected:
  using UploadProtocol::UploadProtocol;
  virtual UploadResult uploadOne(const StoredSymbolFile& file) = 0;
};

// The protocol `config.protocol` names; an error for a malformed --to.
llvm::Expected<std::unique_ptr<UploadProtocol>> makeUploadProtocol(const UploadConfig& config);

// Helpers shared by the protocols.
// An error unless --to is an http:// or https:// URL.
llvm::Error requireHttpUrl(const UploadConfig& config);
std::string joinUrl(const std::string& base, const std::string& relative_path);
// (describeFailure, which quotes an answer: common/http/http_answers.h)
// A file's bytes to send: as stored, or gzip-compressed (then `gzipped` is set).
llvm::Expected<std::string> readBody(const StoredSymbolFile& file, bool gzip);
// A kept binary or .build-id entry, sent as stored (never compressed) and
// read from disk as it goes (HttpRequest::body_file).
struct FileBody {
  struct Closer {
    void operator()(std::FILE* stream) const { std::fclose(stream); }
  };
  std::unique_ptr<std::FILE, Closer> file;
  uint64_t size = 0;
};
llvm::Expected<FileBody> openFileBody(const StoredSymbolFile& file);
// A stored file's Content-Type: text for .sym files and .build-id entries,
// bytes for kept binaries.
const char* storedContentType(const StoredSymbolFile& file);

// What a PUT of a stored file sends (put, s3): a .sym as readBody gives it,
// with its Content-Type and, for --gzip, Content-Encoding; any other file
// streamed from disk with its Content-Type.
struct PutBody {
  std::string text; // a .sym's bytes, or
  FileBody stored;  // a kept file or .build-id entry, read as it goes
  std::vector<std::string> headers;

  bool streamed() const { return stored.file != nullptr; }
  uint64_t size() const { return streamed() ? stored.size : text.size(); }
  // Points `request` at the body (borrowed: this must outlive it) and adds
  // the headers.
  void attachTo(HttpRequest& request) const;
};
llvm::Expected<PutBody> makePutBody(const StoredSymbolFile& file, bool gzip);

} // namespace dumpsyms
