// A store kept in an S3 bucket under a prefix (s3://BUCKET[/PREFIX]), read
// and published with the endpoint, region and credentials `symstore upload
// --protocol s3` uses.
#pragma once

#include "store/backend/store_backend.h"

namespace dumpsyms {

llvm::Expected<std::unique_ptr<StoreBackend>> openS3Backend(const std::string& location,
                                                            const StoreBackendSettings& settings);

} // namespace dumpsyms
