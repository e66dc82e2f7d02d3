// Finding the store file a client names, as clients spell it: Breakpad's
// clients send ids upper-case and names as the module has them, Microsoft's
// SSQP clients lower-case everything, debuginfod's send lower-case hex.
// The path as asked is tried first, then with the id upper-cased, then the
// id and the file name matched without regard to case among the names the
// store holds under the module (a short listing). The module's own name is
// matched without regard to case only when asked (SSQP) and only when no
// directory has it as asked: that takes a listing of the store's top
// level, which a miss of a module the store does not hold (most of a
// crash processor's requests) must not pay for on every .sym.
// Only paths isSafeRelativePath accepts are ever looked at: dot components
// (.incoming, .uploads, .build-id) never are.
#pragma once

#include "store/backend/store_backend.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct FoundStoreFile {
  std::string relative; // as the store spells it
  StoredObjectInfo info;
};

// `components`: {file, id, name}, as the client sent them.
// `module_any_case`: whether the first component may be spelled otherwise.
llvm::Expected<std::optional<FoundStoreFile>>
findStoreFile(StoreBackend& store, const std::vector<std::string>& components,
              bool module_any_case);

// The same for a path the store itself named (a build-id entry's): as
// it is, no other spellings.
llvm::Expected<std::optional<FoundStoreFile>> statStoreFile(StoreBackend& store,
                                                            const std::string& relative);

} // namespace dumpsyms
