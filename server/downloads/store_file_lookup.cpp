#include "server/downloads/store_file_lookup.h"

#include "store/layout/layout.h"

#include <algorithm>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

// Case-insensitive candidates tried at most, all levels together: a
// store never holds more than a few spellings of one name, and a miss must
// stay cheap.
constexpr size_t kMaxSpellings = 16;

std::string join(const std::vector<std::string>& parts) {
  std::string path;
  for (const std::string& part : parts)
    path += (path.empty() ? "" : "/") + part;
  return path;
}

// The names under `directory` equal to `name` without regard to case, the
// exact spelling first, then in byte order.
llvm::Expected<std::vector<std::string>>
spellingsOf(StoreBackend& store, const std::string& directory, const std::string& name) {
  llvm::Expected<std::vector<std::string>> names = store.listNames(directory);
  if (!names)
    return names.takeError();
  std::vector<std::string> found;
  for (const std::string& candidate : *names)
    if (llvm::StringRef(candidate).equals_insensitive(name) && !candidate.starts_with("."))
      found.push_back(candidate);
  std::sort(found.begin(), found.end(), [&](const std::string& a, const std::string& b) {
    if ((a == name) != (b == name))
      return a == name;
    return a < b;
  });
  return found;
}

llvm::Expected<std::optional<FoundStoreFile>>
searchAmong(StoreBackend& store, const std::vector<std::string>& components, size_t level,
            const std::vector<std::string>& names, std::vector<std::string>& prefix,
            size_t& budget);

// Depth-first over the spellings of components[level...] under `prefix`.
llvm::Expected<std::optional<FoundStoreFile>>
searchSpellings(StoreBackend& store, const std::vector<std::string>& components, size_t level,
                std::vector<std::string>& prefix, size_t& budget) {
  llvm::Expected<std::vector<std::string>> names =
      spellingsOf(store, join(prefix), components[level]);
  if (!names)
    return names.takeError();
  return searchAmong(store, components, level, *names, prefix, budget);
}

llvm::Expected<std::optional<FoundStoreFile>>
searchAmong(StoreBackend& store, const std::vector<std::string>& components, size_t level,
            const std::vector<std::string>& names, std::vector<std::string>& prefix,
            size_t& budget) {
  for (const std::string& name : names) {
    if (budget == 0)
      break;
    prefix.push_back(name);
    llvm::Expected<std::optional<FoundStoreFile>> found = std::optional<FoundStoreFile>();
    if (level + 1 == components.size()) {
      --budget;
      found = statStoreFile(store, join(prefix));
    } else {
      found = searchSpellings(store, components, level + 1, prefix, budget);
    }
    prefix.pop_back();
    if (!found || *found)
      return found;
  }
  return std::nullopt;
}

// The spellings of the module name to look under: the name as asked when
// the store has it so, else (only when allowed) the names of the top
// level equal to it without regard to case.
llvm::Expected<std::vector<std::string>>
moduleSpellings(StoreBackend& store, const std::string& name, bool module_any_case) {
  llvm::Expected<std::vector<std::string>> under = store.listNames(name);
  if (!under)
    return under.takeError();
  if (!under->empty())
    return std::vector<std::string>{name};
  if (!module_any_case)
    return std::vector<std::string>{};
  return spellingsOf(store, "", name);
}

} // namespace

llvm::Expected<std::optional<FoundStoreFile>> statStoreFile(StoreBackend& store,
                                                            const std::string& relative) {
  if (!isSafeRelativePath(relative))
    return std::nullopt;
  llvm::Expected<std::optional<StoredObjectInfo>> info = store.stat(relative);
  if (!info)
    return info.takeError();
  if (!*info)
    return std::nullopt;
  return FoundStoreFile{relative, **info};
}

llvm::Expected<std::optional<FoundStoreFile>>
findStoreFile(StoreBackend& store, const std::vector<std::string>& components,
              bool module_any_case) {
  std::string asked = join(components);
  if (components.empty() || !isSafeRelativePath(asked))
    return std::nullopt;
  llvm::Expected<std::optional<FoundStoreFile>> found = statStoreFile(store, asked);
  if (!found || *found)
    return found;

  if (components.size() >= 2) {
    std::vector<std::string> upper = components;
    upper[1] = llvm::StringRef(upper[1]).upper();
    if (upper != components) {
      found = statStoreFile(store, join(upper));
      if (!found || *found)
        return found;
    }
  }

  llvm::Expected<std::vector<std::string>> modules =
      moduleSpellings(store, components[0], module_any_case);
  if (!modules)
    return modules.takeError();
  std::vector<std::string> prefix;
  size_t budget = kMaxSpellings;
  return searchAmong(store, components, 0, *modules, prefix, budget);
}

} // namespace dumpsyms
