#include "common/errors/file_error.h"

namespace dumpsyms {

llvm::Error fileError(const std::string& path, const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", path.c_str(),
                                 message.str().c_str());
}

} // namespace dumpsyms
