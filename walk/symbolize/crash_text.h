// A whole crash text (a logged backtrace, or a JSON report) symbolized at
// once, as `symtool symbolize --json` prints it line by line, with the
// frames the crash happened in picked out: the first backtrace's (or the
// report's), those after its signal trampoline when it has one (before it
// are the handler that logged it).
#pragma once

#include "walk/symbolize/frame_resolver.h"

#include <llvm/Support/JSON.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct SymbolizedCrashText {
  llvm::json::Array lines; // one value per line printed, as --json prints them
  std::vector<ResolvedFrame> crash_frames;
  std::vector<FrameLine> crash_lines; // the same frames as logged
};

// `keep`: a report's frames after the trampoline kept (symbolize --trim).
SymbolizedCrashText symbolizeCrashText(llvm::StringRef text, StoreFrameResolver& resolver,
                                       std::optional<unsigned> keep);

} // namespace dumpsyms
