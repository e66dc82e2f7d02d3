// The crash inbox as `symstore serve --crashes` runs it: the crash store
// (a directory or S3), the index in the cache directory, the workers, the
// routes, and one thread that keeps them in step with the store: it lists
// the store for crashes other servers received or processed, queues the
// crashes nobody processed, and walks again the crashes whose missing
// symbols the symbol store now has (uploaded here or by another server).
#pragma once

#include "server/crashes/crash_index.h"
#include "server/crashes/crash_processor.h"
#include "server/crashes/crash_service.h"
#include "server/crashes/crash_store.h"
#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"
#include "store/supply/store_mirror.h"
#include "walk/signature/signature_rules.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace dumpsyms {

struct CrashInboxOptions {
  std::string location;         // CRASH_STORE: a directory or s3://BUCKET[/PREFIX]
  StoreBackendSettings backend; // the symbol store's endpoint and credentials
  std::string cache_dir;        // the index and the mirror go here
  std::string store_directory;  // the symbol store's directory; "" for S3
  std::string signature_rules;  // --signature-rules DIR; "" for ours
  unsigned workers = 1;
  IndexCacheOptions index;
  CrashServiceSettings service;
  std::chrono::seconds sync_period{10};
  unsigned retention_days = 0; // --crash-retention: files of older crashes removed; 0: kept
  uint64_t max_bytes = 0;      // --crash-max-bytes: the oldest crashes' files removed past it
  std::function<void(const std::string&)> report; // the server's log
};

class CrashInbox {
public:
  static llvm::Expected<std::unique_ptr<CrashInbox>>
  open(CrashInboxOptions options, StoreBackend& symbols, StoreCatalog& catalog);
  ~CrashInbox();

  CrashService& service() { return *service_; }
  const std::string& describe() const { return description_; }
  // Starts the workers and the store's listing.
  void start();
  void stop();
  // Symbols were published here: the crashes that lacked them are looked at now.
  void symbolsPublished();
  // The inbox's lines of /metrics.
  std::string metricsText();

private:
  CrashInbox() = default;
  // Indexes what the store has that the index lacks, and processing that
  // happened elsewhere; `everything`: every day of the store, else the
  // last two.
  llvm::Error syncWithStore(bool everything);
  void requeueResolvable();
  // Removes the files of crashes past --crash-retention and --crash-max-bytes.
  void applyRetention();
  void syncLoop();

  CrashInboxOptions options_;
  std::string description_;
  StoreCatalog* catalog_ = nullptr;
  std::unique_ptr<StoreBackend> backend_;
  std::unique_ptr<CrashStore> crashes_;
  std::unique_ptr<CrashIndex> index_;
  std::unique_ptr<SignatureRuleSource> rules_;
  std::unique_ptr<StoreMirror> mirror_;
  std::unique_ptr<CrashProcessor> processor_;
  CrashCounters counters_;
  std::unique_ptr<CrashService> service_;

  std::mutex sync_mutex_;
  std::condition_variable sync_wake_;
  bool stopping_ = false, symbols_changed_ = false;
  std::thread sync_thread_;
};

} // namespace dumpsyms
