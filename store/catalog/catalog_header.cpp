#include "store/catalog/catalog_header.h"

namespace dumpsyms {

CatalogEntry catalogEntryOf(const SymbolFileHeader& header) {
  CatalogEntry entry;
  entry.os = header.os;
  entry.cpu = header.cpu;
  entry.debug_id = header.debug_id;
  entry.debug_file = header.name;
  entry.code_id = header.code_id;
  entry.code_file = header.code_file;
  entry.info = header.info;
  return entry;
}

} // namespace dumpsyms
