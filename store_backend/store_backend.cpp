#include "store_backend/store_backend.h"

#include "store_backend/directory_backend.h"
#include "store_backend/s3_backend.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

llvm::Expected<std::unique_ptr<StoreBackend>>
openStoreBackend(const std::string& location, const StoreBackendSettings& settings) {
  if (llvm::StringRef(location).starts_with("s3://"))
    return openS3Backend(location, settings);
  return openDirectoryBackend(location);
}

} // namespace dumpsyms
