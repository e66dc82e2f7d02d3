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

#include "symbol_writer/module.h"

#include <cstdint>
#include <functional>
#include <llvm/ADT/ArrayRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

// `size` bytes of the image at `rva`; empty when they are not in the file.
using ImageBytes = std::function<llvm::ArrayRef<uint8_t>(uint32_t rva, uint32_t size)>;

struct X64UnwindResult {
  std::vector<CfiFrame> frames;      // in .pdata order, addresses are RVAs
  std::vector<std::string> problems; // entries skipped, and why
};

X64UnwindResult readX64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes);

} // namespace dumpsyms
