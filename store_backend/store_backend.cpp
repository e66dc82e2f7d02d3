#include "store_backend/store_backend.h"

namespace dumpsyms {

llvm::Expected<std::unique_ptr<StoreBackend>>
openStoreBackend(const std::string& location, const StoreBackendSettings& settings) {
  (void)settings;
  return llvm::createStringError(location + ": store backends are not written yet");
}

} // namespace dumpsyms
