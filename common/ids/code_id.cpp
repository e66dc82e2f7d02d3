#include "common/ids/code_id.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

CodeId CodeId::fromBytes(llvm::ArrayRef<uint8_t> bytes) {
  return CodeId(llvm::toHex(bytes, /*LowerCase=*/false));
}

CodeId CodeId::fromPeImage(uint32_t time_date_stamp, uint32_t size_of_image) {
  return CodeId(fmt::format("{:08X}{:X}", time_date_stamp, size_of_image));
}

CodeId CodeId::fromMinidumpPeModule(uint32_t time_date_stamp, uint32_t size_of_image) {
  return CodeId(fmt::format("{:08X}{:x}", time_date_stamp, size_of_image));
}

std::string CodeId::lower() const {
  return llvm::StringRef(text_).lower();
}

} // namespace dumpsyms
