#include "object/demangle.h"

#include <llvm/Demangle/Demangle.h>

namespace dumpsyms {

std::string demangle(llvm::StringRef name) {
  std::string result;
  if (llvm::nonMicrosoftDemangle(std::string_view(name.data(), name.size()), result))
    return result;
  return name.str();
}

} // namespace dumpsyms
