#include "dump/cfi/arm64_unwind_codes.h"

#include "common/limits/input_limits.h"

#include <fmt/format.h>

namespace dumpsyms::arm64_unwind {

Step save(Step::Kind kind, uint8_t first, uint8_t second, uint32_t offset, uint32_t writeback) {
  return Step{.kind = kind, .size = writeback, .offset = offset, .first = first, .second = second};
}

Step allocate(uint32_t size) {
  return Step{.kind = Step::Allocate, .size = size};
}

Step setFrame(uint32_t offset) {
  return Step{.kind = Step::SetFrame, .offset = offset};
}

Step marker(Step::Kind kind) {
  return Step{.kind = kind};
}

namespace {

// How many bytes the code that starts with `b0` takes, by the table of
// Microsoft's "ARM64 exception handling" (the first byte alone says it,
// reserved codes included: 0xf8-0xfb carry one to four bytes more).
size_t codeLength(uint8_t b0) {
  if (b0 < 0xc0)
    return 1;
  if (b0 < 0xe0) // alloc_m to save_freg_x, and alloc_z
    return 2;
  switch (b0) {
  case 0xe0: // alloc_l
    return 4;
  case 0xe2: // add_fp
    return 2;
  case 0xe7: // save_any_reg, save_zreg, save_preg
    return 3;
  case 0xf8:
  case 0xf9:
  case 0xfa:
  case 0xfb:
    return size_t(b0 - 0xf8) + 2;
  default: // set_fp, nop, end, end_c, save_next, the custom stacks, pac_sign_lr
    return 1;
  }
}

// The custom stacks of 0xe8-0xeb: the caller's registers come from a
// record the code points at (a trap frame, a machine frame, a whole
// CONTEXT), which no STACK CFI rule can load.
const char* customStackName(uint8_t b0) {
  switch (b0) {
  case 0xe8:
    return "MSFT_OP_TRAP_FRAME";
  case 0xe9:
    return "MSFT_OP_MACHINE_FRAME";
  case 0xea:
    return "MSFT_OP_CONTEXT";
  case 0xeb:
    return "MSFT_OP_EC_CONTEXT";
  default:
    return nullptr;
  }
}

} // namespace

std::optional<std::vector<Step>> decodeCodes(llvm::ArrayRef<uint8_t> codes, std::string& problem,
                                             std::vector<std::string>& notes) {
  std::vector<Step> steps;
  for (size_t at = 0; at < codes.size();) {
    uint8_t b0 = codes[at];
    size_t length = codeLength(b0);
    if (at + length > codes.size()) {
      problem = fmt::format("unwind code {:#04x} runs past the code words", b0);
      return std::nullopt;
    }
    uint8_t b1 = length > 1 ? codes[at + 1] : 0;
    uint8_t b2 = length > 2 ? codes[at + 2] : 0;
    // The register index in the two-byte saves: bits 0-1 (or 0) of the
    // first byte above bits 6-7 (or 5-7) of the second.
    uint8_t x2 = uint8_t((b0 & 3) << 2 | b1 >> 6), x1 = uint8_t((b0 & 1) << 2 | b1 >> 6);
    // A reserved code still stands for one instruction: it keeps its place
    // and changes nothing we could say.
    auto skipReserved = [&](const char* what) {
      notes.push_back(fmt::format("unwind code {:#04x} is {}: skipped ({} byte{})", b0, what,
                                  length, length > 1 ? "s" : ""));
      return marker(Step::Nothing);
    };
    Step step;
    if (b0 < 0x20) // alloc_s
      step = allocate((b0 & 0x1f) * 16u);
    else if (b0 < 0x40) // save_r19r20_x
      step = save(Step::SaveIntegers, 19, 20, 0, (b0 & 0x1f) * 8u);
    else if (b0 < 0x80) // save_fplr
      step = save(Step::SaveIntegers, kFramePointer, kLinkRegister, (b0 & 0x3f) * 8u, 0);
    else if (b0 < 0xc0) // save_fplr_x
      step = save(Step::SaveIntegers, kFramePointer, kLinkRegister, 0, ((b0 & 0x3f) + 1) * 8u);
    else if (b0 < 0xc8) // alloc_m
      step = allocate((uint32_t(b0 & 7) << 8 | b1) * 16u);
    else if (b0 < 0xcc) // save_regp
      step = save(Step::SaveIntegers, uint8_t(19 + x2), uint8_t(20 + x2), (b1 & 0x3f) * 8u, 0);
    else if (b0 < 0xd0) // save_regp_x
      step =
          save(Step::SaveIntegers, uint8_t(19 + x2), uint8_t(20 + x2), 0, ((b1 & 0x3f) + 1) * 8u);
    else if (b0 < 0xd4) // save_reg
      step = save(Step::SaveIntegers, uint8_t(19 + x2), kNoRegister, (b1 & 0x3f) * 8u, 0);
    else if (b0 < 0xd6) // save_reg_x
      step = save(Step::SaveIntegers, uint8_t(19 + ((b0 & 1) << 3 | b1 >> 5)), kNoRegister, 0,
                  ((b1 & 0x1f) + 1) * 8u);
    else if (b0 < 0xd8) // save_lrpair
      step = save(Step::SaveIntegers, uint8_t(19 + 2 * x1), kLinkRegister, (b1 & 0x3f) * 8u, 0);
    else if (b0 < 0xda) // save_fregp
      step = save(Step::SaveFloats, uint8_t(8 + x1), uint8_t(9 + x1), (b1 & 0x3f) * 8u, 0);
    else if (b0 < 0xdc) // save_fregp_x
      step = save(Step::SaveFloats, uint8_t(8 + x1), uint8_t(9 + x1), 0, ((b1 & 0x3f) + 1) * 8u);
    else if (b0 < 0xde) // save_freg
      step = save(Step::SaveFloats, uint8_t(8 + x1), kNoRegister, (b1 & 0x3f) * 8u, 0);
    else if (b0 == 0xde) // save_freg_x
      step = save(Step::SaveFloats, uint8_t(8 + (b1 >> 5)), kNoRegister, 0, ((b1 & 0x1f) + 1) * 8u);
    else if (b0 == 0xdf) { // alloc_z: sp moves by a multiple of the SVE vector length
      problem = "unwind code 0xdf (alloc_z) moves sp by a multiple of the SVE vector length, "
                "which no STACK CFI rule can know";
      return std::nullopt;
    } else if (b0 == 0xe0) // alloc_l
      step = allocate((uint32_t(b1) << 16 | uint32_t(codes[at + 2]) << 8 | codes[at + 3]) * 16u);
    else if (b0 == 0xe1) // set_fp
      step = setFrame(0);
    else if (b0 == 0xe2) // add_fp
      step = setFrame(b1 * 8u);
    else if (b0 == 0xe3) // nop
      step = marker(Step::Nothing);
    else if (b0 == 0xfc) // pac_sign_lr: lr is signed from here on; the walker strips it
      step = marker(Step::Nothing);
    else if (b0 == 0xe4)
      step = marker(Step::End);
    else if (b0 == 0xe5)
      step = marker(Step::EndChained);
    else if (b0 == 0xe6)
      step = marker(Step::SaveNext);
    else if (b0 == 0xe7 && (b1 & 0x80)) {
      step = skipReserved("save_any_reg with its reserved bit set");
    } else if (b0 == 0xe7 && (b2 >> 6) == 3) {
      // save_zreg / save_preg: an SVE register stored at a vector-length
      // multiple above sp; sp does not move and no rule names z or p.
      step = marker(Step::Nothing);
    } else if (b0 == 0xe7) { // save_any_reg: 0pxrrrrr ffoooooo
      bool paired = b1 & 0x40, writeback = b1 & 0x20;
      uint8_t reg = b1 & 0x1f, kind = b2 >> 6;
      uint32_t scaled = (b2 & 0x3f) + (writeback ? 1 : 0);
      scaled *= (!writeback && !paired && kind != 2) ? 8 : 16;
      uint8_t second = paired ? uint8_t(reg + 1) : kNoRegister;
      if (kind == 0 && (reg > kLinkRegister || (paired && reg + 1 > kLinkRegister))) {
        problem = fmt::format("save_any_reg names x{}", reg);
        return std::nullopt;
      }
      step = save(kind == 0 ? Step::SaveIntegers : Step::SaveFloats, reg, second,
                  writeback ? 0 : scaled, writeback ? scaled : 0);
    } else if (const char* name = customStackName(b0)) {
      problem = fmt::format("unwind code {:#04x} ({}) is a custom stack: the caller's registers "
                            "are loaded from a record, which no STACK CFI rule can do",
                            b0, name);
      return std::nullopt;
    } else if (b0 == 0xec) { // MSFT_OP_CLEAR_UNWOUND_TO_CALL
      step = marker(Step::ClearUnwoundToCall);
    } else {
      step = skipReserved("reserved");
    }
    if (step.kind == Step::SaveIntegers &&
        (step.first > kLinkRegister ||
         (step.second != kNoRegister && step.second > kLinkRegister))) {
      problem = fmt::format("unwind code {:#04x} saves x{}, past x30", b0,
                            step.second != kNoRegister ? step.second : step.first);
      return std::nullopt;
    }
    step.byte_index = at;
    steps.push_back(step);
    at += length;
  }
  // save_next stores the pair after the previous save's: the save it
  // continues comes after it in the stored (backwards) order.
  std::optional<size_t> previous;
  for (size_t i = steps.size(); i-- > 0;) {
    Step& step = steps[i];
    if (step.kind == Step::End || step.kind == Step::EndChained) {
      previous.reset();
    } else if (step.kind == Step::SaveNext) {
      const Step* base = previous ? &steps[*previous] : nullptr;
      bool pair = base && (base->kind == Step::SaveIntegers || base->kind == Step::SaveFloats) &&
                  base->second == base->first + 1;
      uint8_t limit = base && base->kind == Step::SaveIntegers ? 28 : 15;
      if (!pair || base->second + 2 > limit) {
        problem = "save_next follows no register pair it can continue";
        return std::nullopt;
      }
      size_t index = step.byte_index;
      step = save(base->kind, uint8_t(base->first + 2), uint8_t(base->second + 2),
                  base->offset + 16, 0);
      step.byte_index = index;
      previous = i;
    } else if (step.kind == Step::SaveIntegers || step.kind == Step::SaveFloats) {
      previous = i;
    }
  }
  return steps;
}

} // namespace dumpsyms::arm64_unwind
