// Walking a store through its backend for the catalog: the three levels
// <debug_file>/<ID>/<file> listed, every .sym's header read (or taken from
// the last reading while its ETag holds) and checked against where it is
// filed, and the other files of each directory gathered beside it.
#pragma once

#include "store/backend/store_backend.h"
#include "store/catalog/store_catalog.h"

#include <llvm/Support/Error.h>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

struct CatalogReading {
  std::vector<CatalogEntry> entries; // by relative path
  std::vector<std::string> problems; // "NAME/ID/file: why", sorted
  // The code-id links' headers (store/layout/code_id_index.h): no entries, but
  // known for the next reading all the same, so that it reads them again
  // only when they change.
  std::vector<CatalogEntry> links;
};

// Reads `store`. `known`: the entries of the last reading by relative path;
// a .sym whose ETag is still the known entry's is not read again. An error
// only when the store cannot be listed; a file that cannot be read is a
// problem line.
llvm::Expected<CatalogReading>
readCatalog(StoreBackend& store, const std::unordered_map<std::string, CatalogEntry>& known);

} // namespace dumpsyms
