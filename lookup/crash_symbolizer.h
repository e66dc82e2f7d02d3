// Crash text, line by line: which lines are frames, and each frame resolved
// where a debugger would look: the first frame of a backtrace, and the first
// frame after a signal trampoline (the faulting instruction itself), at
// their address; every other frame, a return address, at address - 1.
#pragma once

#include "lookup/frame_resolver.h"

#include <optional>

namespace dumpsyms {

class CrashSymbolizer {
public:
  explicit CrashSymbolizer(StoreFrameResolver& resolver) : resolver_(resolver) {}

  // The frame on `line` resolved, or nullopt for a line that is not a frame
  // (which also ends the backtrace it follows).
  std::optional<ResolvedFrame> line(llvm::StringRef text);

private:
  StoreFrameResolver& resolver_;
  size_t frame_index_ = 0;        // in the current backtrace
  bool after_trampoline_ = false; // the previous frame was a signal trampoline
};

// Whether `name` is a signal-return trampoline (glibc, the arm64 vDSO).
bool isSignalTrampoline(const std::string& name);

} // namespace dumpsyms
