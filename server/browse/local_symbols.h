// Where the pages find a stored symbol file on this machine, for what
// reads a path (the lookup index, the walker's store search): in a
// directory store, the file itself; in an S3 store, a copy mirrored into
// the cache in the store's own layout (so the walker searches the mirror
// as it would a store), fetched again when the catalog's ETag changes.
#pragma once

#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <mutex>
#include <string>

namespace dumpsyms {

class LocalSymbols {
public:
  // `store_directory`: the store's directory, "" for a store elsewhere;
  // `mirror_directory`: where copies go then.
  LocalSymbols(StoreBackend& store, std::string store_directory, std::string mirror_directory);

  // The store (or mirror) root the walker searches.
  const std::string& root() const { return root_; }
  // The local path of `entry`'s .sym, copying it first if need be.
  llvm::Expected<std::string> path(const CatalogEntry& entry);
  // Its bytes.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text(const CatalogEntry& entry);

private:
  StoreBackend& store_;
  bool mirrored_;
  std::string root_;
  std::mutex mirror_mutex_;
};

} // namespace dumpsyms
