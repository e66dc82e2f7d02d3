#include "lookup/crash_symbolizer.h"

namespace dumpsyms {

bool isSignalTrampoline(const std::string& name) {
  return name == "__restore_rt" || name == "__default_sa_restorer" ||
         name == "__kernel_rt_sigreturn" || name == "__default_rt_sa_restorer";
}

std::optional<ResolvedFrame> CrashSymbolizer::line(llvm::StringRef text) {
  std::optional<FrameLine> frame = parseFrameLine(text);
  if (!frame) {
    frame_index_ = 0;
    after_trampoline_ = false;
    return std::nullopt;
  }
  bool exact = frame_index_ == 0 || after_trampoline_;
  ++frame_index_;
  ResolvedFrame resolved = resolver_.resolve(*frame, false);
  std::string name = resolved.info.public_name      ? *resolved.info.public_name
                     : resolved.info.frames.empty() ? std::string()
                                                    : resolved.info.frames.back().function;
  // A trampoline's address is where a handler returns to, at its very
  // first instruction: looked up as it is.
  if (isSignalTrampoline(name)) {
    after_trampoline_ = true;
    return resolved;
  }
  after_trampoline_ = false;
  if (!exact)
    resolved = resolver_.resolve(*frame, true);
  return resolved;
}

} // namespace dumpsyms
