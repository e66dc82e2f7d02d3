#include "common/ids/debug_id.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

namespace {

uint32_t read32le(const uint8_t* bytes) {
  return uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 | uint32_t(bytes[2]) << 16 |
         uint32_t(bytes[3]) << 24;
}

uint16_t read16le(const uint8_t* bytes) {
  return uint16_t(bytes[0] | bytes[1] << 8);
}

} // namespace

DebugId DebugId::fromGuid(const std::array<uint8_t, 16>& g, uint32_t age) {
  std::string id = fmt::format("{:08X}{:04X}{:04X}", read32le(g.data()), read16le(g.data() + 4),
                               read16le(g.data() + 6));
  for (size_t i = 8; i < 16; ++i)
    id += fmt::format("{:02X}", g[i]);
  return DebugId(id + fmt::format("{:x}", age));
}

DebugId DebugId::fromIdentifier(llvm::ArrayRef<uint8_t> bytes) {
  std::array<uint8_t, 16> guid = {};
  std::copy_n(bytes.begin(), std::min<size_t>(bytes.size(), 16), guid.begin());
  return fromGuid(guid, 0);
}

DebugId DebugId::fromUuid(const std::array<uint8_t, 16>& uuid) {
  return DebugId(llvm::toHex(uuid, /*LowerCase=*/false) + "0");
}

DebugId DebugId::fromSignature(uint32_t signature, uint32_t age) {
  return DebugId(fmt::format("{:08X}{:x}", signature, age));
}

DebugId DebugId::null() {
  return DebugId(std::string(33, '0'));
}

bool DebugId::isNull() const {
  return text_.size() == 33 && text_.find_first_not_of('0') == std::string::npos;
}

} // namespace dumpsyms
