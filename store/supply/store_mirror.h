// A served store as a directory the symbol supplier can search: a
// directory store is itself; an S3 store is mirrored into the cache in the
// store's own layout, a file at a time as the pages need it (fetched again
// when the catalog's ETag changes), so that the supplier, the lookup index
// and the walker read it as they read any store.
#pragma once

#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <mutex>
#include <string>

namespace dumpsyms {

class StoreMirror {
public:
  // `store_directory`: the store's directory, "" for a store elsewhere;
  // `mirror_directory`: where copies go then.
  StoreMirror(StoreBackend& store, std::string store_directory, std::string mirror_directory);

  // The store (or mirror) root the walker searches.
  const std::string& root() const { return root_; }
  // Whether files are copied into root() (a store elsewhere) rather than
  // read where they are.
  bool mirrored() const { return mirrored_; }
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
