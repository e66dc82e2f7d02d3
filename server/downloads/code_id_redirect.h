// Tecken's code-id redirect: a client that knows a module only by its code
// file and code id (a Windows minidump without CodeView records, Wine's)
// asks /<code_file>/<CODE_ID>/<debug_file stem>.sym (Tecken's form) or
// /<code_file>/<CODE_ID>/<code_file>.sym (the store's code-id index path,
// store/layout/code_id_index.h), and is sent with a 302 to the module's debug-id
// path, which the index entry's MODULE line names. An ELF module's code id
// is its build id: the .build-id entry of --keep-binaries stores names its
// debug-id directory.
#pragma once

#include "server/downloads/store_file_lookup.h"
#include "store/backend/store_backend.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// The store path to send a client asking for `components` ({file, id,
// name.sym}) to, or none when the asked file is to be served as it is (or
// is missing). `found`: what findStoreFile found at the asked path.
llvm::Expected<std::optional<std::string>>
codeIdRedirectTarget(StoreBackend& store, const std::vector<std::string>& components,
                     const std::optional<FoundStoreFile>& found);

// "/a/b/c" with every byte outside RFC 3986's unreserved set (and '/')
// percent-encoded: the Location of a redirect to a store path.
std::string locationOf(const std::string& relative);

} // namespace dumpsyms
