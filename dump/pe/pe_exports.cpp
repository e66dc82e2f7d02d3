#include "dump/pe/pe_exports.h"

#include "common/limits/input_limits.h"

#include <cstring>
#include <fmt/format.h>

namespace dumpsyms {

namespace {

uint32_t le32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

uint16_t le16(const uint8_t* p) {
  return uint16_t(p[0] | p[1] << 8);
}

// The NUL-terminated string at `rva`, at most `max` bytes; none when it is
// outside the file or unterminated.
std::optional<std::string> stringAt(const PeImage& pe, uint32_t rva, size_t max) {
  llvm::ArrayRef<uint8_t> bytes = pe.bytesFrom(rva);
  if (bytes.empty())
    return std::nullopt; // (memchr is not to be given a null pointer, even for no bytes)
  size_t limit = std::min(bytes.size(), max + 1);
  const void* nul = std::memchr(bytes.data(), 0, limit);
  if (!nul)
    return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes.data()),
                     static_cast<const uint8_t*>(nul) - bytes.data());
}

} // namespace

PeExports readPeExports(const PeImage& pe) {
  PeExports result;
  auto [directory_rva, directory_size] = pe.exportDirectory();
  if (directory_rva == 0 || directory_size == 0)
    return result;
  // IMAGE_EXPORT_DIRECTORY: ..., Base at 16, NumberOfFunctions at 20,
  // NumberOfNames at 24, AddressOfFunctions, AddressOfNames,
  // AddressOfNameOrdinals at 28, 32, 36.
  llvm::ArrayRef<uint8_t> header = pe.bytesAt(directory_rva, 40);
  if (header.empty()) {
    result.problems.push_back("the export directory is outside the file: no exports read");
    return result;
  }
  uint32_t function_count = le32(&header[20]), name_count = le32(&header[24]);
  uint32_t functions_rva = le32(&header[28]), names_rva = le32(&header[32]),
           ordinals_rva = le32(&header[36]);
  if (function_count > limits::kMaxPeExports || name_count > limits::kMaxPeExports) {
    result.problems.push_back(fmt::format("the export directory counts {} functions and {} names: "
                                          "over the limit of {}: no exports read",
                                          function_count, name_count, limits::kMaxPeExports));
    return result;
  }
  llvm::ArrayRef<uint8_t> functions = pe.bytesAt(functions_rva, function_count * 4);
  llvm::ArrayRef<uint8_t> names = pe.bytesAt(names_rva, name_count * 4);
  llvm::ArrayRef<uint8_t> ordinals = pe.bytesAt(ordinals_rva, name_count * 2);
  if ((function_count && functions.empty()) ||
      (name_count && (names.empty() || ordinals.empty()))) {
    result.problems.push_back("the export tables lie outside the file: no exports read");
    return result;
  }
  size_t unreadable = 0;
  for (uint32_t i = 0; i < name_count; ++i) {
    uint16_t index = le16(&ordinals[i * 2]);
    if (index >= function_count) {
      ++unreadable;
      continue;
    }
    uint32_t rva = le32(&functions[index * 4]);
    if (rva == 0 || (rva >= directory_rva && rva - directory_rva < directory_size))
      continue; // (unused slot, or a forwarder: the name of another DLL's export)
    std::optional<std::string> name = stringAt(pe, le32(&names[i * 4]), limits::kMaxPeExportName);
    if (!name || name->empty()) {
      ++unreadable;
      continue;
    }
    result.exports.push_back({rva, std::move(*name)});
  }
  if (unreadable)
    result.problems.push_back(
        fmt::format("{} exports have an unreadable name or ordinal: left out", unreadable));
  return result;
}

} // namespace dumpsyms
