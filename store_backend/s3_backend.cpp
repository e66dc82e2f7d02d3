#include "store_backend/s3_backend.h"

namespace dumpsyms {

llvm::Expected<std::unique_ptr<StoreBackend>> openS3Backend(const std::string& location,
                                                            const StoreBackendSettings& settings) {
  (void)settings;
  return llvm::createStringError(location + ": the S3 store backend is not written yet");
}

} // namespace dumpsyms
