#include "store/catalog/catalog_ids.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

bool isElfModuleOs(std::string_view os) {
  llvm::StringRef name(os.data(), os.size());
  return name.equals_insensitive("linux") || name.equals_insensitive("android");
}

} // namespace dumpsyms
