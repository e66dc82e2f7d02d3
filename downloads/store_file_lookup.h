// Finding the store file a client names, as clients spell it: Breakpad's
// clients send ids upper-case and names as the module has them, Microsoft's
// SSQP clients lower-case everything, debuginfod's send lower-case hex.
// The path as asked is tried first, then with the id upper-cased, then
// each component matched without regard to case among the names the store
// holds at that level. Only paths isSafeRelativePath accepts are ever
// looked at: dot components (.incoming, .uploads, .build-id) never are.
#pragma once

#include "store_backend/store_backend.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct FoundStoreFile {
  std::string relative; // as the store spells it
  StoredObjectInfo info;
};

// `components`: {file, id, name}, as the client sent them.
llvm::Expected<std::optional<FoundStoreFile>>
findStoreFile(StoreBackend& store, const std::vector<std::string>& components);

// The same for a path the store itself named (a build-id entry's): as
// it is, no other spellings.
llvm::Expected<std::optional<FoundStoreFile>> statStoreFile(StoreBackend& store,
                                                            const std::string& relative);

} // namespace dumpsyms
