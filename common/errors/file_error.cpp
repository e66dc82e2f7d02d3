#include "common/errors/file_error.h"

namespace dumpsyms {

llvm::Error fileError(const std::string& path, const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s", path.c_str(),
                                 message.str().c_str());
}

std::string renamedFile(std::string message, const std::string& path, const std::string& name) {
  if (path.empty())
    return message;
  for (size_t at = message.find(path); at != std::string::npos;
       at = message.find(path, at + name.size()))
    message.replace(at, path.size(), name);
  return message;
}

} // namespace dumpsyms
