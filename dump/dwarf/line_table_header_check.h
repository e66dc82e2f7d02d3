// LLVM 19's line-table prologue parser trusts the header it reads: a form
// code it cannot extract, a file attribute whose form is not a constant, or
// an entry list that runs past the header makes it read wild memory and
// crash (issue 14). Every header is checked here first, against the DWARF
// 2-5 layout, so that only headers LLVM reads safely reach it.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

struct LineTableLocation {
  llvm::StringRef section; // the whole .debug_line (or .debug_line.dwo)
  uint64_t offset = 0;     // where the table starts in it
  bool little_endian = true;
};

// Why the header of the line table at `where` is unsafe to hand to LLVM, or
// "" when it is sound.
std::string lineTableHeaderProblem(const LineTableLocation& where);

} // namespace dumpsyms
