// An ELF file's GNU build id (NT_GNU_BUILD_ID): the bytes, and the
// lower-case hex debuginfod, `file` and the .build-id trees spell them in.
#pragma once

#include <cstdint>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

class BuildId {
public:
  BuildId() = default; // none
  explicit BuildId(llvm::ArrayRef<uint8_t> bytes) : bytes_(bytes.begin(), bytes.end()) {}
  // Hex digits, any case, an even number of them; none otherwise.
  static std::optional<BuildId> parseHex(llvm::StringRef text);

  const std::vector<uint8_t>& bytes() const { return bytes_; }
  bool empty() const { return bytes_.empty(); }
  std::string hex() const; // lower-case

  friend bool operator==(const BuildId&, const BuildId&) = default;

private:
  std::vector<uint8_t> bytes_;
};

} // namespace dumpsyms
