#include "store/catalog/catalog_header.h"

namespace dumpsyms {

CatalogEntry catalogEntryOf(const SymbolFileHeader& header) {
  CatalogEntry entry;
  static_cast<SymbolFileHeader&>(entry) = header;
  return entry;
}

} // namespace dumpsyms
