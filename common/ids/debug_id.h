// A module's debug id: the MODULE record's id and a symbol store's second
// path level (<debug file>/<DEBUG ID>/<file>.sym). Breakpad writes it from
// a GUID and an age (PDBs, CodeView records) or from identifier bytes read
// as a GUID (ELF build ids, Breakpad's BpEL records), a Mach-O UUID, or an
// old PDB's signature; every producer builds it here.
//
// An id read back (a MODULE line, a store directory, a URL) keeps its
// spelling: the ages of Windows ids are lower-case hex, and a file written
// by another tool may differ in case. Two spellings name the same build
// when they differ in case alone (sameBuild); what people type (a GUID with
// dashes and braces) is matched by its key (id_key.h); == compares the
// spelling itself.
#pragma once

#include "common/ids/id_key.h"

#include <array>
#include <compare>
#include <cstdint>
#include <fmt/format.h>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <string>
#include <string_view>

namespace dumpsyms {

class DebugId {
public:
  DebugId() = default; // no id
  // An id as written, whatever it holds (isHex() says whether it is one).
  explicit DebugId(std::string text) : text_(std::move(text)) {}

  // A GUID in the byte order a PDB or a CodeView record holds it (Data1,
  // Data2 and Data3 little-endian), then its age: upper-case hex of the GUID
  // as Windows prints it, and the age in lower-case hex without leading
  // zeros (Breakpad's Windows dumper prints it with %x).
  static DebugId fromGuid(const std::array<uint8_t, 16>& guid, uint32_t age);
  // Identifier bytes (an ELF build id, the .text hash, a BpEL record's
  // build id): the first 16, zero-padded, read as a GUID, age 0. 33 digits.
  static DebugId fromIdentifier(llvm::ArrayRef<uint8_t> bytes);
  // A Mach-O UUID (or the MD5 standing for a missing one), in byte order,
  // age 0.
  static DebugId fromUuid(const std::array<uint8_t, 16>& uuid);
  // An old PDB's (NB10) signature and age.
  static DebugId fromSignature(uint32_t signature, uint32_t age);
  // 33 zeros: the id of a PE without a CodeView record.
  static DebugId null();

  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }
  // 33 zeros.
  bool isNull() const;
  // Hex digits only, and at least one.
  bool isHex() const { return isHexKey(text_); }
  // The key every spelling of this id shares, typed ones too.
  std::string key() const { return idKey(text_); }
  // Whether `other` is this id but for the case of its letters.
  bool sameBuild(const DebugId& other) const {
    return llvm::StringRef(text_).equals_insensitive(other.text_);
  }

  friend bool operator==(const DebugId&, const DebugId&) = default;
  friend std::strong_ordering operator<=>(const DebugId& a, const DebugId& b) {
    return a.text_ <=> b.text_;
  }

private:
  std::string text_;
};

} // namespace dumpsyms

template <> struct fmt::formatter<dumpsyms::DebugId> : fmt::formatter<std::string_view> {
  template <typename Context> auto format(const dumpsyms::DebugId& id, Context& context) const {
    return fmt::formatter<std::string_view>::format(id.str(), context);
  }
};
