#include "server/crashes/crash_inbox.h"

#include "server/crashes/crash_id.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/xxhash.h>

namespace dumpsyms {
namespace {

// A crash nobody has processed this long after it was received was
// received by a server that stopped first: this one walks it.
constexpr int64_t kOrphanAfterMs = 2 * 60 * 1000;

int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

} // namespace

llvm::Expected<std::unique_ptr<CrashInbox>>
CrashInbox::open(CrashInboxOptions options, StoreBackend& symbols, StoreCatalog& catalog) {
  std::unique_ptr<CrashInbox> inbox(new CrashInbox());
  inbox->options_ = std::move(options);
  CrashInboxOptions& o = inbox->options_;
  inbox->catalog_ = &catalog;
  if (o.location.rfind("s3://", 0) != 0)
    if (std::error_code error = llvm::sys::fs::create_directories(o.location))
      return llvm::createStringError("--crashes " + o.location + ": " + error.message());
  auto backend = openStoreBackend(o.location, o.backend);
  if (!backend)
    return llvm::createStringError("--crashes " + o.location + ": " +
                                   llvm::toString(backend.takeError()));
  inbox->backend_ = std::move(*backend);
  inbox->description_ = inbox->backend_->describe();
  inbox->crashes_ = std::make_unique<CrashStore>(*inbox->backend_);

  if (std::error_code error = llvm::sys::fs::create_directories(o.cache_dir))
    return llvm::createStringError("cannot create the cache directory " + o.cache_dir + ": " +
                                   error.message());
  char name[32];
  std::snprintf(name, sizeof name, "crashes-%016llx.sqlite",
                static_cast<unsigned long long>(llvm::xxh3_64bits(inbox->description_)));
  auto index = CrashIndex::open(o.cache_dir + "/" + name, inbox->description_);
  if (!index)
    return index.takeError();
  inbox->index_ = std::move(*index);

  if (o.signature_rules.empty()) {
    inbox->rules_ = std::make_unique<SignatureRuleSource>();
  } else {
    auto rules = SignatureRuleSource::open(o.signature_rules);
    if (!rules)
      return rules.takeError();
    inbox->rules_ = std::move(*rules);
    inbox->rules_->onChange(o.report);
  }
  inbox->mirror_ =
      std::make_unique<StoreMirror>(symbols, o.store_directory, o.cache_dir + "/crash-mirror");
  CrashProcessorSettings processing;
  processing.workers = o.workers;
  processing.index = o.index;
  processing.report = o.report;
  inbox->processor_ =
      std::make_unique<CrashProcessor>(*inbox->crashes_, *inbox->index_, symbols, catalog,
                                       *inbox->mirror_, *inbox->rules_, std::move(processing));
  inbox->service_ = std::make_unique<CrashService>(*inbox->crashes_, *inbox->index_,
                                                   *inbox->processor_, o.service, inbox->counters_);
  // The index follows the store: made whole when it is new, brought up to
  // date (every day listed once) when it is not.
  if (llvm::Error error = inbox->syncWithStore(true))
    return llvm::createStringError("--crashes " + o.location + ": " +
                                   llvm::toString(std::move(error)));
  return inbox;
}

CrashInbox::~CrashInbox() {
  stop();
}

void CrashInbox::start() {
  for (const std::string& id : index_->queued())
    processor_->enqueue(id);
  processor_->start();
  sync_thread_ = std::thread([this] { syncLoop(); });
}

void CrashInbox::stop() {
  {
    std::lock_guard<std::mutex> lock(sync_mutex_);
    stopping_ = true;
  }
  sync_wake_.notify_all();
  if (sync_thread_.joinable())
    sync_thread_.join();
  if (processor_)
    processor_->stop();
}

void CrashInbox::symbolsPublished() {
  {
    std::lock_guard<std::mutex> lock(sync_mutex_);
    symbols_changed_ = true;
  }
  sync_wake_.notify_all();
}

void CrashInbox::syncLoop() {
  for (;;) {
    bool symbols_changed = false;
    {
      std::unique_lock<std::mutex> lock(sync_mutex_);
      sync_wake_.wait_for(lock, options_.sync_period,
                          [this] { return stopping_ || symbols_changed_; });
      if (stopping_)
        return;
      symbols_changed = symbols_changed_;
      symbols_changed_ = false;
    }
    if (!symbols_changed)
      if (llvm::Error error = syncWithStore(false))
        if (options_.report)
          options_.report("the crash store could not be listed: " +
                          llvm::toString(std::move(error)));
    requeueResolvable();
    applyRetention();
  }
}

void CrashInbox::applyRetention() {
  constexpr size_t kBatch = 1000; // crashes expired a pass at most
  std::string at = rfc3339(std::chrono::system_clock::now());
  auto expire = [&](const std::string& id) {
    if (llvm::Error error = crashes_->expire(id, at)) {
      if (options_.report)
        options_.report("crash " + id +
                        ": its files could not be removed: " + llvm::toString(std::move(error)));
      return false;
    }
    std::string tag;
    auto processed = crashes_->processed(id, &tag);
    if (processed && *processed) {
      if (llvm::Error error = index_->setProcessed(id, **processed, tag))
        llvm::consumeError(std::move(error));
    } else if (!processed) {
      llvm::consumeError(processed.takeError());
    }
    return true;
  };
  if (options_.retention_days)
    for (const auto& [id, bytes] :
         index_->oldestKept(kBatch, nowMillis() - int64_t(options_.retention_days) * 86400000))
      if (!expire(id))
        break;
  if (options_.max_bytes) {
    uint64_t kept = index_->keptBytes();
    if (kept > options_.max_bytes)
      for (const auto& [id, bytes] : index_->oldestKept(kBatch, INT64_MAX)) {
        if (kept <= options_.max_bytes || !expire(id))
          break;
        kept -= std::min<uint64_t>(kept, static_cast<uint64_t>(bytes));
      }
  }
}

llvm::Error CrashInbox::syncWithStore(bool everything) {
  std::vector<CrashStore::ListedCrash> listed;
  auto now = std::chrono::system_clock::now();
  std::vector<std::string> days;
  if (everything)
    days.push_back("");
  else
    days = {utcDay(now - std::chrono::hours(24), false), utcDay(now, false)};
  for (const std::string& day : days) {
    auto crashes = crashes_->list(day);
    if (!crashes)
      return crashes.takeError();
    listed.insert(listed.end(), crashes->begin(), crashes->end());
  }
  for (const CrashStore::ListedCrash& crash : listed) {
    if (!crash.received) // still being received (or half removed)
      continue;
    std::optional<IndexedCrash> indexed = index_->find(crash.id);
    if (!indexed) {
      auto record = crashes_->record(crash.id);
      if (!record) {
        llvm::consumeError(record.takeError());
        continue;
      }
      if (!*record)
        continue;
      if (llvm::Error error = index_->addReceived(**record))
        return error;
      indexed = index_->find(crash.id);
      if (!indexed)
        continue;
    }
    // processed.json written by this server or another since it was indexed.
    if (!crash.processed_tag.empty() && crash.processed_tag != indexed->processed_tag) {
      std::string read_tag;
      auto processed = crashes_->processed(crash.id, &read_tag);
      if (processed && *processed) {
        if (llvm::Error error = index_->setProcessed(crash.id, **processed, read_tag))
          return error;
      } else if (!processed) {
        llvm::consumeError(processed.takeError());
      }
    } else if (crash.processed_tag.empty() && indexed->status == "queued" &&
               nowMillis() - indexed->received_ms > kOrphanAfterMs) {
      processor_->enqueue(crash.id);
    }
  }
  return llvm::Error::success();
}

void CrashInbox::requeueResolvable() {
  auto catalog = catalog_->snapshot();
  if (!catalog) {
    llvm::consumeError(catalog.takeError());
    return;
  }
  for (const auto& [debug_file, debug_id] : index_->missingModules()) {
    bool found = debug_id.empty() ? !(*catalog)->versions(debug_file).empty()
                                  : (*catalog)->find(debug_file, DebugId(debug_id)) != nullptr;
    if (!found)
      continue;
    for (const std::string& id : index_->crashesMissing(debug_file, debug_id))
      processor_->enqueue(id);
  }
}

std::string CrashInbox::metricsText() {
  std::string out;
  auto counter = [&out](const char* name, const char* help, uint64_t value) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " counter\n" + name +
           " " + std::to_string(value) + "\n";
  };
  counter("symstore_crashes_accepted_total", "Crash reports stored.", counters_.accepted.load());
  counter("symstore_crashes_discarded_rate_total",
          "Crash reports discarded by --crash-rate (answered Discarded=rule_rate).",
          counters_.discarded_rate.load());
  counter("symstore_crashes_malformed_total", "Crash reports refused as malformed (400).",
          counters_.malformed.load());
  counter("symstore_crashes_too_large_total", "Crash reports refused as too large (413).",
          counters_.too_large.load());
  counter("symstore_crashes_processed_total", "Crashes walked and signed.",
          processor_->processed());
  counter("symstore_crashes_failed_total", "Crashes whose processing failed.",
          processor_->failed());
  out += "# HELP symstore_crashes_backlog Crashes waiting to be processed.\n"
         "# TYPE symstore_crashes_backlog gauge\nsymstore_crashes_backlog " +
         std::to_string(processor_->backlog()) + "\n";
  return out;
}

} // namespace dumpsyms
