// A store kept in a local (or shared, NFS) directory: files are read where
// `symstore add` wrote them and published by rename, so several servers over
// one directory see the same files and never a partial one.
#pragma once

#include "store/backend/store_backend.h"

namespace dumpsyms {

// `root` must be an existing directory; it is resolved once, and every file
// served must resolve under it (the code-id index's relative links do; a
// link leading outside the store is treated as absent).
llvm::Expected<std::unique_ptr<StoreBackend>> openDirectoryBackend(const std::string& root);

} // namespace dumpsyms
