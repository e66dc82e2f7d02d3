// The general registers of one thread as NT_PRSTATUS holds them, under the
// names Breakpad's postfix rules use for the CPU.
#pragma once

#include "symbol_file/rules/postfix_evaluator.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <optional>

namespace dumpsyms {

struct PrStatus {
  uint32_t tid = 0;
  int signal = 0;
  RegisterValues registers;
};

// std::nullopt when the note is too short for the CPU's layout or the CPU
// is not one we walk (x86_64 and arm64).
std::optional<PrStatus> decodePrStatus(uint16_t machine, llvm::StringRef note);

} // namespace dumpsyms
