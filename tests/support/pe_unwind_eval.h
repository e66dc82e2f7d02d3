// What the unit tests of the PE unwind readers (x64, ARM64) share: a
// made-up image whose bytes the readers reach by RVA, and the caller's
// registers that a reader's frames give, recovered with the postfix
// evaluator the stack walker uses.
#pragma once

#include "dump/cfi/pe_unwind.h"
#include "symbol_file/rules/postfix_evaluator.h"
#include "symbol_file/rules/register_names.h"

#include <cstdint>
#include <vector>

namespace dumpsyms::test_support {

struct PeImageBytes {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(0x4000, 0);
  void put16(uint32_t at, uint16_t v) {
    bytes[at] = uint8_t(v);
    bytes[at + 1] = uint8_t(v >> 8);
  }
  void put32(uint32_t at, uint32_t v) {
    put16(at, uint16_t(v));
    put16(at + 2, uint16_t(v >> 16));
  }
  ImageBytes reader() const {
    return [this](uint32_t rva, uint32_t size) -> llvm::ArrayRef<uint8_t> {
      if (uint64_t(rva) + size > bytes.size())
        return {};
      return llvm::ArrayRef<uint8_t>(bytes).slice(rva, size);
    };
  }
};

// The caller's registers at `rva` by the frame covering it (empty when
// none does, or the rules cannot be computed); ELF machine numbers name
// the register set, as the walker's do.
inline RegisterValues unwindPeFrames(const PeUnwindResult& result, uint64_t rva,
                                     const RegisterValues& callee, uint16_t machine,
                                     const MemoryReader& memory) {
  auto registers = RegisterNames::forMachine(machine, true);
  for (const CfiFrame& frame : result.frames)
    if (frame.range.contains(rva)) {
      auto caller =
          recoverCallerRegisters(cfiRulesAt(frame, rva), callee, *registers, machine, memory);
      return caller.value_or(RegisterValues{});
    }
  return {};
}

} // namespace dumpsyms::test_support
