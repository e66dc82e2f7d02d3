#include "dump/locate/debug_links.h"

#include <llvm/Support/CRC.h>
#include <llvm/Support/MemoryBuffer.h>

namespace dumpsyms {

namespace {

std::optional<llvm::StringRef> contents(const ElfImage& image, const char* name) {
  auto bytes = image.sectionBytes(name);
  if (!bytes) {
    llvm::consumeError(bytes.takeError());
    return std::nullopt;
  }
  return *bytes;
}

} // namespace

std::optional<DebugLink> readDebugLink(const ElfImage& image) {
  std::optional<llvm::StringRef> data = contents(image, ".gnu_debuglink");
  if (!data)
    return std::nullopt;
  size_t end = data->find('\0');
  if (end == llvm::StringRef::npos || end == 0)
    return std::nullopt;
  size_t crc_at = (end + 4) & ~size_t(3);
  if (crc_at + 4 > data->size())
    return std::nullopt;
  uint32_t crc = 0;
  for (int i = 0; i < 4; ++i) {
    uint8_t byte = static_cast<uint8_t>((*data)[crc_at + i]);
    crc |= uint32_t(byte) << (8 * (image.isLittleEndian() ? i : 3 - i));
  }
  return DebugLink{data->substr(0, end).str(), crc};
}

std::optional<AltLink> readAltLink(const ElfImage& image) {
  if (std::optional<llvm::StringRef> data = contents(image, ".gnu_debugaltlink")) {
    size_t end = data->find('\0');
    if (end == llvm::StringRef::npos || end == 0)
      return std::nullopt;
    llvm::StringRef id = data->substr(end + 1);
    return AltLink{data->substr(0, end).str(),
                   std::vector<uint8_t>(id.bytes_begin(), id.bytes_end())};
  }
  // DWARF 5: version (2), is_supplementary (1), file name, checksum length
  // (ULEB128), checksum.
  if (std::optional<llvm::StringRef> data = contents(image, ".debug_sup")) {
    if (data->size() < 4 || (*data)[2] != 0)
      return std::nullopt; // this file is the supplementary one
    llvm::StringRef rest = data->substr(3);
    size_t end = rest.find('\0');
    if (end == llvm::StringRef::npos || end == 0)
      return std::nullopt;
    AltLink link{rest.substr(0, end).str(), {}};
    size_t at = end + 1;
    uint64_t length = 0;
    for (unsigned shift = 0; at < rest.size() && shift < 64; shift += 7) {
      uint8_t byte = static_cast<uint8_t>(rest[at++]);
      length |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        break;
    }
    llvm::StringRef checksum = rest.substr(at, length);
    link.build_id.assign(checksum.bytes_begin(), checksum.bytes_end());
    return link;
  }
  return std::nullopt;
}

std::optional<uint32_t> fileCrc32(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, false, false);
  if (!buffer)
    return std::nullopt;
  return llvm::crc32(llvm::arrayRefFromStringRef((*buffer)->getBuffer()));
}

} // namespace dumpsyms
