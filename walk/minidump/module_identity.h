// Who a minidump module is: its debug file and debug id from the CodeView
// record (a PDB's RSDS or NB10, or Breakpad's BpEL record of an ELF
// build-id), its code id, and its version from VS_FIXEDFILEINFO.
#pragma once

#include "common/ids/build_id.h"
#include "common/ids/debug_id.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

struct ModuleIdentity {
  std::string debug_file; // "" when the record names none
  DebugId debug_id;       // "" when there is no usable record
  BuildId build_id;       // BpEL: the build-id, lower-case hex
  std::string problem;    // why the record was not used, when it was not
  // The record's kind by its signature alone (what rust-minidump keys its
  // code id on), even when the ids could not be read from it.
  CodeViewKind kind = CodeViewKind::Absent;
};

// `code_file`: the module's path, which is the debug file of an ELF module.
ModuleIdentity identityFromCodeView(llvm::StringRef record, const std::string& code_file);

// The record's kind by its signature and length.
CodeViewKind codeViewKind(llvm::StringRef record);

// "major.minor.build.revision" from VS_FIXEDFILEINFO's file version; ""
// when its signature is not 0xfeef04bd or its structure version lacks the
// 0x10000 bit (as Breakpad's processor requires).
std::string fixedFileVersion(uint32_t signature, uint32_t struct_version, uint32_t version_high,
                             uint32_t version_low);

} // namespace dumpsyms
