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
#pragma once

#include "cfi/pe_unwind.h"

namespace dumpsyms {

PeUnwindResult readArm64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes);

} // namespace dumpsyms
