#include "walk/minidump/minidump_bytes.h"

#include "common/limits/input_limits.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/Endian.h>
#include <vector>

namespace dumpsyms {

std::optional<std::string> MinidumpBytes::string(uint64_t rva) const {
  auto length = at(rva, 4);
  if (!length)
    return std::nullopt;
  uint32_t bytes = llvm::support::endian::read32le(length->data());
  if (bytes % 2 != 0 || bytes > limits::kMaxMinidumpStringBytes)
    return std::nullopt;
  auto text = at(rva + 4, bytes);
  if (!text)
    return std::nullopt;
  std::vector<llvm::UTF16> units(bytes / 2);
  for (size_t i = 0; i < units.size(); ++i)
    units[i] = llvm::support::endian::read16le(text->data() + 2 * i);
  std::string out;
  if (!llvm::convertUTF16ToUTF8String(llvm::ArrayRef<llvm::UTF16>(units), out))
    return std::nullopt;
  // Some writers count the terminating NUL.
  while (!out.empty() && out.back() == '\0')
    out.pop_back();
  return out;
}

} // namespace dumpsyms
