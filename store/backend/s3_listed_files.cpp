#include "store/backend/s3_listed_files.h"

#include "store/s3/s3_answers.h"

#include <algorithm>
#include <llvm/ADT/SmallVector.h>

namespace dumpsyms {

bool isLayoutFile(llvm::StringRef relative) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  relative.split(parts, '/');
  if (parts.size() != 3)
    return false;
  for (llvm::StringRef part : parts)
    if (part.empty() || part.starts_with("."))
      return false;
  return true;
}

std::optional<std::string> addTreeFiles(llvm::StringRef body, const std::string& root,
                                        std::vector<ListedObject>& files) {
  S3ObjectsPage parsed = parseObjectListingPage(body);
  for (S3ListedObject& object : parsed.objects) {
    llvm::StringRef relative(object.key);
    if (!relative.consume_front(root) || relative.empty())
      continue;
    llvm::SmallVector<llvm::StringRef, 8> parts;
    relative.split(parts, '/');
    bool hidden = false;
    for (llvm::StringRef part : parts)
      hidden |= part.empty() || part.starts_with(".");
    if (!hidden)
      files.push_back({relative.str(), {object.size, object.etag, object.mtime}});
  }
  return parsed.continuation;
}

void sortListed(std::vector<ListedObject>& files) {
  std::sort(files.begin(), files.end(),
            [](const ListedObject& a, const ListedObject& b) { return a.relative < b.relative; });
}

} // namespace dumpsyms
