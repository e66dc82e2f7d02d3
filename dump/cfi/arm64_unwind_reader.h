// Turns the ARM64 exception directory of a PE image (.pdata entries, either
// packed or pointing at .xdata unwind codes) into STACK CFI frames.
//
// Each function gets a STACK CFI INIT at its start (nothing saved yet: the
// caller's pc is in x30, its sp is sp) and one change after every prologue
// instruction the codes describe, so that a crash inside the prologue
// unwinds as well as one in the body. Unlike x64's, ARM64's unwind data also
// says where each epilogue is and which codes undo it: every epilogue
// instruction gets its rows too, and the body's rules come back after the
// epilogue's return when code follows it. Fragments (`end_c`, packed flag 2)
// start from the state their host's prologue left.
//
// The STACK CFI names the registers as Breakpad's arm64 walker does (x0-x30,
// sp); d8-d15 saves move sp but are not given rules (no walker recovers
// floating-point registers).
//
// Every code of the format's table is read with its length (the first byte
// says it). What each becomes:
//  - the stack and save codes, set_fp/add_fp, save_next, save_any_reg:
//    rules;
//  - nop, save_zreg/save_preg (SVE stores that leave sp alone) and
//    pac_sign_lr: an instruction with no rule change. After pac_sign_lr
//    the lr a rule recovers is signed; the rule stays, because the walkers
//    (ours, and Breakpad's since it strips pointer authentication codes)
//    strip the signature from a return address that lands in no module;
//  - MSFT_OP_CLEAR_UNWOUND_TO_CALL (0xec): the caller's pc is lr as it
//    stood at that point of the prologue. The frame is kept; what STACK CFI
//    cannot say is that this pc is not a return address, so a walker still
//    looks up the caller's line one instruction early;
//  - reserved codes (0xed-0xfb, 0xfd-0xff, save_any_reg's reserved bit):
//    skipped with their length, as one instruction, with a note;
//  - alloc_z (sp moves by a multiple of the SVE vector length) and the
//    custom stacks MSFT_OP_TRAP_FRAME, MSFT_OP_MACHINE_FRAME,
//    MSFT_OP_CONTEXT and MSFT_OP_EC_CONTEXT (the caller's registers are
//    loaded from a record): the function is refused, the problem naming
//    the code.
#pragma once

#include "dump/cfi/pe_unwind.h"

namespace dumpsyms {

PeUnwindResult readArm64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes);

} // namespace dumpsyms
