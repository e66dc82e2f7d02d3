// The unwind codes of an ARM64 PE's .xdata (Microsoft's "ARM64 exception
// handling"), decoded into the steps the frame goes through: what
// arm64_unwind_reader turns into STACK CFI rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <llvm/ADT/ArrayRef.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms::arm64_unwind {

inline constexpr uint8_t kFramePointer = 29, kLinkRegister = 30, kNoRegister = 0xff;

// The little-endian word at `at` (the caller has checked it is there).
inline uint32_t read32(llvm::ArrayRef<uint8_t> b, size_t at) {
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 |
         uint32_t(b[at + 3]) << 24;
}

// What one prologue instruction does to the frame (an epilogue instruction
// undoes the same). The unwind codes of Microsoft's "ARM64 exception
// handling" each describe one instruction; `End` and `EndChained` end a
// sequence and describe none (`End` stands for the epilogue's return).
struct Step {
  enum Kind : uint8_t {
    Allocate,     // sp -= size
    SaveIntegers, // sp -= size, then x`first` (and x`second`) at [sp + offset]
    SaveFloats,   // sp -= size, then d-registers at [sp + offset]: only sp matters
    SetFrame,     // x29 = sp + offset
    Nothing,      // an instruction that leaves the frame alone (nop, pacibsp)
    // MSFT_OP_CLEAR_UNWOUND_TO_CALL: the caller's pc is lr as it stands
    // here (Windows' unwinder takes it when it meets the code, and the
    // codes that run before it in the prologue cannot change it).
    ClearUnwoundToCall,
    SaveNext, // the next pair after the previous save (resolved when decoded)
    End,
    EndChained,
  } kind = Nothing;
  uint32_t size = 0;
  uint32_t offset = 0;
  uint8_t first = kNoRegister, second = kNoRegister;
  size_t byte_index = 0; // where its code starts in the code bytes
};

// Steps as the codes and the packed form describe them.
Step save(Step::Kind kind, uint8_t first, uint8_t second, uint32_t offset, uint32_t writeback);
Step allocate(uint32_t size);
Step setFrame(uint32_t offset);
Step marker(Step::Kind kind);

// The unwind codes, one Step each, in the order they are stored (a
// prologue's backwards, an epilogue's forwards). nullopt with `problem`
// for codes no STACK CFI can express or that run past the bytes; codes
// skipped as the format allows (reserved ones) are said in `notes`.
std::optional<std::vector<Step>> decodeCodes(llvm::ArrayRef<uint8_t> codes, std::string& problem,
                                             std::vector<std::string>& notes);

} // namespace dumpsyms::arm64_unwind
