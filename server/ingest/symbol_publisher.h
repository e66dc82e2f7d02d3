// The last steps every protocol shares: a spooled upload checked
// (upload_checks.h), then published through the store backend, with the
// code-id index's copy of a Windows module's file beside it, and counted.
#pragma once

#include "server/ingest/spool_file.h"
#include "server/ingest/upload_checks.h"
#include "server/ingest/upload_service.h"

#include <optional>
#include <string>
#include <variant>

namespace dumpsyms {

struct CheckedSymbolFile {
  SpoolFile spool;
  SymbolFileFacts facts;
};

class SymbolPublisher {
public:
  SymbolPublisher(StoreBackend& store, const UploadSettings& settings, UploadCounters& counters)
      : store_(store), settings_(settings), counters_(counters) {}

  // A copy of the local file `source` in the store's spool directory.
  std::variant<SpoolFile, UploadRefusal> spool(const std::string& source);
  // Parses the spooled file; `what` names it in a refusal.
  std::optional<UploadRefusal> check(CheckedSymbolFile& file, const std::string& what);
  // Whether publishing would meet other bytes (409) without --replace:
  // asked of every file of a many-file upload before any is published.
  std::optional<UploadRefusal> conflict(const CheckedSymbolFile& file);
  // Publishes the file (consuming its spool) and its code-id copy.
  std::variant<PublishOutcome, UploadRefusal> publish(CheckedSymbolFile& file);

  // An answer refusing the upload, counted.
  ServerResponse refuse(const UploadRefusal& refusal);

  StoreBackend& store() { return store_; }
  const UploadSettings& settings() const { return settings_; }
  UploadCounters& counters() { return counters_; }

private:
  StoreBackend& store_;
  const UploadSettings& settings_;
  UploadCounters& counters_;
};

} // namespace dumpsyms
