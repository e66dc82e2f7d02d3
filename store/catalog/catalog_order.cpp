#include "store/catalog/catalog_order.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

bool isNewerEntry(const CatalogEntry& a, const CatalogEntry& b) {
  if (a.mtime != b.mtime)
    return a.mtime > b.mtime;
  if (a.debug_id != b.debug_id)
    return a.debug_id < b.debug_id;
  return a.relative_path < b.relative_path;
}

bool isBeforeInResults(const CatalogEntry& a, const CatalogEntry& b) {
  if (int order = llvm::StringRef(a.debug_file).compare_insensitive(b.debug_file); order != 0)
    return order < 0;
  if (a.debug_file != b.debug_file)
    return a.debug_file < b.debug_file;
  return isNewerEntry(a, b);
}

} // namespace dumpsyms
