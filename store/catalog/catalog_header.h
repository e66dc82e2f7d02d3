// The first lines of a stored symbol file as the catalog keeps them: the
// MODULE line's four fields, INFO CODE_ID's id and file, and the other INFO
// lines. The bytes come from anyone who could upload, so the parser never
// trusts them: it keeps nothing with control bytes in it and only so much
// of the rest (the pages print every kept line).
#pragma once

#include "store/catalog/store_catalog.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace dumpsyms {

// How much of a file the catalog reads: a MODULE line and its INFO lines
// fit many times over (store/store_listing and downloads/ read as much).
constexpr uint64_t kCatalogHeaderBytes = 4096;
// INFO lines kept besides CODE_ID, and the longest kept; longer ones are
// dropped, not cut (a cut value would be a wrong one).
constexpr size_t kMaxCatalogInfoLines = 16;
constexpr size_t kMaxCatalogInfoLine = 1024;

// The header of `text`, a file's first kCatalogHeaderBytes bytes (or all of
// it when shorter): "MODULE os cpu id name" first, then "INFO ..." lines.
// Only the header fields are set (not the path, size, mtime or etag). None
// when the first line is no MODULE line with four fields free of control
// bytes. A last line without '\n' counts only when `text` is shorter than
// kCatalogHeaderBytes (the whole file); otherwise it may have been cut.
std::optional<CatalogEntry> parseCatalogHeader(std::string_view text);

} // namespace dumpsyms
