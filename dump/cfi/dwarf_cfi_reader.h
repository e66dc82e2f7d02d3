// STACK CFI frames from a .eh_frame or .debug_frame section: one frame per
// FDE, its rows translated into postfix rules.
#pragma once

#include "common/errors/diagnostics.h"
#include "symbol_file/model/module.h"
#include "symbol_file/rules/register_names.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <map>
#include <string>
#include <vector>

namespace dumpsyms {

struct CfiSectionInput {
  llvm::StringRef bytes;
  uint64_t address = 0; // the section's address, for pc-relative pointers
  bool is_eh_frame = false;
  uint16_t machine = 0;
  bool is_64_bit = true;
  bool little_endian = true;
  std::string origin; // "FILE: .eh_frame", for messages
};

// What could not be said in postfix, by reason, for -v.
struct CfiStats {
  uint64_t rules_written = 0;
  uint64_t rules_untranslated = 0;
  std::map<std::string, uint64_t> reasons;
};

std::vector<CfiFrame> readDwarfCfi(const CfiSectionInput& input, const RegisterNames& registers,
                                   CfiStats& stats, Diagnostics& diagnostics);

} // namespace dumpsyms
