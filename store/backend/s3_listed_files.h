// What the S3 backend makes of a bucket listing's pages: which keys are
// files of a store's layout, and which lie under a prefix at any depth.
#pragma once

#include "store/backend/store_backend.h"

#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// "<name>/<id>/<file>", no name empty or starting with '.': a file of the
// store's layout, not the server's own (.uploads) or the .build-id index.
bool isLayoutFile(llvm::StringRef relative);

// The objects of one ListObjectsV2 page (XML `body`) under `root` (the
// store's key prefix), at any depth, none of whose names is empty or
// starts with '.', added to `files` by their store-relative paths; the
// page's continuation token (none on the last page).
std::optional<std::string> addTreeFiles(llvm::StringRef body, const std::string& root,
                                        std::vector<ListedObject>& files);

// By relative path, as a listing is handed on.
void sortListed(std::vector<ListedObject>& files);

} // namespace dumpsyms
