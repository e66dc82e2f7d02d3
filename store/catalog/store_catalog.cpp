// StoreCatalog: when the catalog is read again, and by whom.
#include "store/catalog/store_catalog.h"

#include "store/catalog/catalog_reading.h"

namespace dumpsyms {

StoreCatalog::StoreCatalog(StoreBackend& store, std::chrono::seconds max_age)
    : store_(store), max_age_(max_age) {}

llvm::Expected<std::shared_ptr<const CatalogSnapshot>> StoreCatalog::snapshot() {
  // One reader at a time: the others wait here and take what it read
  // rather than each listing the store (an S3 listing costs requests).
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t invalidations = invalidations_.load();
  auto now = std::chrono::steady_clock::now();
  if (current_ && !stale_ && read_invalidations_ == invalidations && now - read_at_ < max_age_)
    return current_;
  llvm::Expected<CatalogReading> reading = readCatalog(store_, known_);
  if (!reading) {
    stale_ = true;
    return reading.takeError();
  }
  known_.clear();
  for (const std::vector<CatalogEntry>* read : {&reading->entries, &reading->links})
    for (const CatalogEntry& entry : *read)
      known_.emplace(entry.relative_path, entry);
  current_ = std::make_shared<const CatalogSnapshot>(std::move(reading->entries),
                                                     std::move(reading->problems));
  read_at_ = now; // when the reading began: what it saw is at least this old
  read_invalidations_ = invalidations;
  stale_ = false;
  return current_;
}

void StoreCatalog::invalidate() {
  invalidations_.fetch_add(1);
}

} // namespace dumpsyms
