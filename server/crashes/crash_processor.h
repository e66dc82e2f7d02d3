// The crash inbox's workers: a bounded pool, off the request path, that
// walks each received crash with the store's symbols (a minidump as
// `symtool stackwalk --json` walks it, a backtrace or report as `symtool
// symbolize --json` reads it), signs it, and writes the result beside the
// crash (processed.json) and into the index. A crash walked again keeps
// its earlier signatures in its history.
#pragma once

#include "server/crashes/crash_index.h"
#include "server/crashes/crash_store.h"
#include "store/catalog/store_catalog.h"
#include "store/supply/store_mirror.h"
#include "store/supply/symbol_supplier.h"
#include "symbol_file/index/index_cache.h"
#include "walk/signature/signature_rules.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace dumpsyms {

struct CrashProcessorSettings {
  unsigned workers = 1;
  IndexCacheOptions index;
  // Told of each crash that could not be processed (the server's log).
  std::function<void(const std::string&)> report;
};

class CrashProcessor {
public:
  CrashProcessor(CrashStore& crashes, CrashIndex& index, StoreBackend& symbols,
                 StoreCatalog& catalog, StoreMirror& mirror, SignatureRuleSource& rules,
                 CrashProcessorSettings settings);
  ~CrashProcessor();

  void start();
  // Lets the crash being walked finish; the rest stay queued in the index.
  void stop();
  // Queued once however often it is asked for.
  void enqueue(const std::string& id);
  size_t backlog();
  uint64_t processed() const { return processed_.load(); }
  uint64_t failed() const { return failed_.load(); }

private:
  // A worker's symbol supplier, kept from one crash to the next: the
  // symbol files it opened (their mapped indexes) serve the next crash
  // instead of being opened again for each.
  struct KeptSymbols {
    std::shared_ptr<SymbolSupplier> supplier;
    std::shared_ptr<const CatalogSnapshot> catalog; // the store as it was when made
  };
  // The worker's supplier, made again when the store's catalog was read
  // again (an upload, or the periodic reading: a module missing before may
  // be there now) and when it has opened many files.
  SymbolSupplier& keptSupplier(KeptSymbols& kept);

  void work();
  // Walks, signs and records one crash now (the workers' step).
  void processOne(const std::string& id, KeptSymbols& kept);
  ProcessedCrash walkMinidump(const CrashRecord& record, KeptSymbols& kept);
  ProcessedCrash readCrashText(const CrashRecord& record, KeptSymbols& kept);

  CrashStore& crashes_;
  CrashIndex& index_;
  StoreBackend& symbols_;
  StoreCatalog& catalog_;
  StoreMirror& mirror_;
  SignatureRuleSource& rules_;
  CrashProcessorSettings settings_;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_; // in queue_ or being processed
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::atomic<uint64_t> processed_{0}, failed_{0};
};

} // namespace dumpsyms
