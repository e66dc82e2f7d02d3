#include "store/backend/store_backend.h"

#include "store/backend/directory_backend.h"
#include "store/backend/s3_backend.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

bool isLayoutName(const std::string& name) {
  return !name.empty() && name.front() != '.';
}

} // namespace

llvm::Expected<std::vector<ListedObject>> StoreBackend::listFiles() {
  std::vector<ListedObject> files;
  auto names = listNames("");
  if (!names)
    return names.takeError();
  for (const std::string& name : *names) {
    if (!isLayoutName(name))
      continue;
    auto ids = listNames(name);
    if (!ids)
      return ids.takeError();
    for (const std::string& id : *ids) {
      if (!isLayoutName(id))
        continue;
      auto leaves = listNames(name + "/" + id);
      if (!leaves)
        return leaves.takeError();
      for (const std::string& leaf : *leaves) {
        if (!isLayoutName(leaf))
          continue;
        std::string relative = name + "/" + id + "/" + leaf;
        auto info = stat(relative);
        if (!info)
          return info.takeError();
        if (*info) // not gone since the listing, and a file (not a directory)
          files.push_back({relative, **info});
      }
    }
  }
  return files;
}

llvm::Expected<std::unique_ptr<StoreBackend>>
openStoreBackend(const std::string& location, const StoreBackendSettings& settings) {
  if (llvm::StringRef(location).starts_with("s3://"))
    return openS3Backend(location, settings);
  return openDirectoryBackend(location);
}

} // namespace dumpsyms
