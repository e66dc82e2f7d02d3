// Turns the x64 exception directory of a PE image (.pdata RUNTIME_FUNCTION
// entries and the .xdata UNWIND_INFO they point at) into STACK CFI frames.
//
// Each function gets a STACK CFI INIT at its start (the state on entry:
// return address at [rsp]) and one change at the end of every prologue
// instruction an unwind code describes, so that a crash inside the prologue
// unwinds as well as one in the body. Chained entries (UNW_FLAG_CHAININFO)
// start from the complete state of the entry they chain to. Epilogues are
// not described by unwind codes: inside one the rules are those of the body
// (as with Breakpad's Windows dumper).
#pragma once

#include "dump/cfi/pe_unwind.h"

namespace dumpsyms {

using X64UnwindResult = PeUnwindResult;

X64UnwindResult readX64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes);

} // namespace dumpsyms
