// The orders the catalog lists entries in, one definition each so that the
// search results, a module's versions and the newest uploads agree.
#pragma once

#include "store/catalog/store_catalog.h"

namespace dumpsyms {

// Newest upload first: mtime descending, then debug id, then path (so that
// equal times still list the same way every time).
bool isNewerEntry(const CatalogEntry& a, const CatalogEntry& b);

// By debug_file without regard to case, then as is; within one debug_file
// newest first.
bool isBeforeInResults(const CatalogEntry& a, const CatalogEntry& b);

} // namespace dumpsyms
