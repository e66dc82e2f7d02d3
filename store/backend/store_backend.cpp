#include "store/backend/store_backend.h"

#include "store/backend/directory_backend.h"
#include "store/backend/s3_backend.h"

#include <algorithm>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

bool isLayoutName(const std::string& name) {
  return !name.empty() && name.front() != '.';
}

} // namespace

llvm::Expected<std::vector<ListedObject>> StoreBackend::listTree(const std::string& relative_dir) {
  std::vector<ListedObject> files;
  std::vector<std::string> pending{relative_dir};
  while (!pending.empty()) {
    std::string directory = std::move(pending.back());
    pending.pop_back();
    auto names = listNames(directory);
    if (!names)
      return names.takeError();
    for (const std::string& name : *names) {
      if (!isLayoutName(name))
        continue;
      std::string relative = directory.empty() ? name : directory + "/" + name;
      auto info = stat(relative);
      if (!info)
        return info.takeError();
      if (*info)
        files.push_back({relative, **info});
      else
        pending.push_back(relative); // not a file: a directory (or gone)
    }
  }
  std::sort(files.begin(), files.end(),
            [](const ListedObject& a, const ListedObject& b) { return a.relative < b.relative; });
  return files;
}

llvm::Expected<std::vector<ListedObject>> StoreBackend::listFiles() {
  auto files = listTree("");
  if (!files)
    return files.takeError();
  // The layout's files: <name>/<id>/<file>, nothing deeper or shallower.
  std::erase_if(*files, [](const ListedObject& file) {
    return std::count(file.relative.begin(), file.relative.end(), '/') != 2;
  });
  return files;
}

llvm::Expected<std::unique_ptr<StoreBackend>>
openStoreBackend(const std::string& location, const StoreBackendSettings& settings) {
  if (llvm::StringRef(location).starts_with("s3://"))
    return openS3Backend(location, settings);
  return openDirectoryBackend(location);
}

} // namespace dumpsyms
