// Crash text, line by line: which lines are frames, and each frame resolved
// where a debugger would look: the first frame of a backtrace, and the first
// frame after a signal trampoline (the faulting instruction itself), at
// their address; every other frame, a return address, at address - 1.
// A `func+0x…` frame whose `func` the symbol file does not name (an alias
// such as glibc's __libc_start_main) is placed by its logged address, when
// another frame of the same backtrace gives the module's load address.
#pragma once

#include "walk/symbolize/frame_resolver.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

class CrashSymbolizer {
public:
  explicit CrashSymbolizer(StoreFrameResolver& resolver) : resolver_(resolver) {}

  // The frame on `line` resolved, or nullopt for a line that is not a frame
  // (which also ends the backtrace it follows).
  std::optional<ResolvedFrame> line(llvm::StringRef text);

  // Learns each module's load address from the frames of one backtrace
  // that give both an offset in it and the absolute address; call it with
  // the backtrace's lines before resolving them.
  void learnLoadAddresses(const std::vector<std::string>& backtrace);

private:
  StoreFrameResolver& resolver_;
  size_t frame_index_ = 0;        // in the current backtrace
  bool after_trampoline_ = false; // the previous frame was a signal trampoline
  // Module as written -> its load address in the crashed process; absent
  // when the backtrace's frames disagree.
  std::map<std::string, std::optional<uint64_t>> load_addresses_;
};

// Whether `name` is a signal-return trampoline (glibc, the arm64 vDSO).
bool isSignalTrampoline(const std::string& name);

} // namespace dumpsyms
