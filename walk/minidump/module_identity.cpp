#include "walk/minidump/module_identity.h"

#include "walk/minidump/minidump_bytes.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/Path.h>
#include <vector>

namespace dumpsyms {

namespace {

constexpr uint32_t kRsds = 0x53445352; // "RSDS": PDB 7.0
constexpr uint32_t kNb10 = 0x3031424e; // "NB10": PDB 2.0
constexpr uint32_t kBpel = 0x4270454c; // "LEpB" in the file: Breakpad's ELF build-id record (BpEL)

// A NUL-terminated name in what is left of the record.
std::string name(llvm::StringRef rest) {
  return rest.take_until([](char c) { return c == 0; }).str();
}

} // namespace

CodeViewKind codeViewKind(llvm::StringRef record) {
  // rust-minidump's reading: a signature, then a record long enough for its
  // fixed fields (names and build-ids may be empty); anything else is no
  // record at all.
  if (record.size() < 4)
    return CodeViewKind::Absent;
  switch (read32le(record.data())) {
  case kRsds:
    return record.size() >= 24 ? CodeViewKind::Pdb70 : CodeViewKind::Absent;
  case kNb10:
    return record.size() >= 16 ? CodeViewKind::Pdb20 : CodeViewKind::Absent;
  case kBpel:
    return CodeViewKind::Elf;
  default:
    return CodeViewKind::Other;
  }
}

ModuleIdentity identityFromCodeView(llvm::StringRef record, const std::string& code_file) {
  ModuleIdentity out;
  out.kind = codeViewKind(record);
  if (record.empty()) {
    out.problem = "no CodeView record";
    return out;
  }
  // (Breakpad reads no signature from a record of 4 bytes or fewer.)
  if (record.size() <= 4) {
    out.problem = "a CodeView record of " + std::to_string(record.size()) + " bytes";
    return out;
  }
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(record.data());
  uint32_t signature = read32le(bytes);
  if (signature == kRsds) {
    if (record.size() < 25 || record.back() != 0) {
      out.problem = "an RSDS record without its GUID, age and NUL-terminated PDB name";
      return out;
    }
    std::array<uint8_t, 16> guid;
    std::copy_n(bytes + 4, 16, guid.begin());
    out.debug_id = DebugId::fromGuid(guid, read32le(bytes + 20));
    out.debug_file = name(record.drop_front(24));
  } else if (signature == kNb10) {
    if (record.size() < 17 || record.back() != 0) {
      out.problem = "an NB10 record without its timestamp, age and NUL-terminated PDB name";
      return out;
    }
    out.debug_id = DebugId::fromSignature(read32le(bytes + 8), read32le(bytes + 12));
    out.debug_file = name(record.drop_front(16));
  } else if (signature == kBpel) {
    std::vector<uint8_t> id(bytes + 4, bytes + record.size());
    out.debug_id = DebugId::fromIdentifier(id);
    out.build_id = BuildId(id);
    out.debug_file = code_file;
  } else {
    out.problem = "a CodeView record of unknown signature 0x" + llvm::utohexstr(signature);
  }
  return out;
}

std::string fixedFileVersion(uint32_t signature, uint32_t struct_version, uint32_t version_high,
                             uint32_t version_low) {
  if (signature != 0xfeef04bd || !(struct_version & 0x10000))
    return "";
  char text[64];
  std::snprintf(text, sizeof text, "%u.%u.%u.%u", version_high >> 16, version_high & 0xffff,
                version_low >> 16, version_low & 0xffff);
  return text;
}

} // namespace dumpsyms
