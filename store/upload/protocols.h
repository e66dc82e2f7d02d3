// The protocol implementations, each in its own file.
#pragma once

#include "store/upload/upload_protocol.h"

namespace dumpsyms {

llvm::Expected<std::unique_ptr<UploadProtocol>> makePutProtocol(const UploadConfig& config);
llvm::Expected<std::unique_ptr<UploadProtocol>> makeS3Protocol(const UploadConfig& config);
llvm::Expected<std::unique_ptr<UploadProtocol>> makeBreakpadV1Protocol(const UploadConfig& config);
llvm::Expected<std::unique_ptr<UploadProtocol>> makeBreakpadV2Protocol(const UploadConfig& config);
llvm::Expected<std::unique_ptr<UploadProtocol>> makeTeckenProtocol(const UploadConfig& config);

} // namespace dumpsyms
