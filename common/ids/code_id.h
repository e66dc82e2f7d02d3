// A module's code id: INFO CODE_ID's id, what names the executable itself.
// A PE's is its TimeDateStamp (8 hex digits) and SizeOfImage (hex without
// leading zeros): upper-case in a symbol file, as Breakpad's Windows dumper
// writes it, and with a lower-case size where Breakpad's processor reads a
// minidump's module. An ELF module's is its identifier bytes (the build id)
// and a Mach-O's its UUID, upper-case hex in a symbol file. Read back, it
// keeps its spelling; spellings name the same executable when their keys
// (upper-case) are equal.
#pragma once

#include "common/ids/id_key.h"

#include <compare>
#include <cstdint>
#include <fmt/format.h>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

class CodeId {
public:
  CodeId() = default; // no id
  explicit CodeId(std::string text) : text_(std::move(text)) {}

  static CodeId fromBytes(llvm::ArrayRef<uint8_t> bytes);
  // INFO CODE_ID's spelling: "%08X%X".
  static CodeId fromPeImage(uint32_t time_date_stamp, uint32_t size_of_image);
  // A minidump module's, as Breakpad's processor spells it: "%08X%x".
  static CodeId fromMinidumpPeModule(uint32_t time_date_stamp, uint32_t size_of_image);

  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }
  // The key every spelling of this id shares (id_key.h).
  std::string key() const { return idKey(text_); }
  // rust-minidump's spelling: lower-case.
  std::string lower() const;
  // Whether `other` is this id but for the case of its letters.
  bool sameExecutable(const CodeId& other) const {
    return llvm::StringRef(text_).equals_insensitive(other.text_);
  }

  friend bool operator==(const CodeId&, const CodeId&) = default;
  friend std::strong_ordering operator<=>(const CodeId& a, const CodeId& b) {
    return a.text_ <=> b.text_;
  }

private:
  std::string text_;
};

} // namespace dumpsyms

template <> struct fmt::formatter<dumpsyms::CodeId> : fmt::formatter<std::string_view> {
  template <typename Context> auto format(const dumpsyms::CodeId& id, Context& context) const {
    return fmt::formatter<std::string_view>::format(id.str(), context);
  }
};
