// A catalog entry's header fields, from the one MODULE/INFO reader
// (symbol_file/text/symbol_header.h): the MODULE line's four fields, INFO
// CODE_ID's id and file, and the other INFO lines the pages print.
#pragma once

#include "store/catalog/store_catalog.h"
#include "symbol_file/text/symbol_header.h"

namespace dumpsyms {

// Only the header fields are set (not the path, size, mtime or etag).
CatalogEntry catalogEntryOf(const SymbolFileHeader& header);

} // namespace dumpsyms
