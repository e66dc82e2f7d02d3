#include "walk/symbolize/crash_symbolizer.h"

namespace dumpsyms {

bool isSignalTrampoline(const std::string& name) {
  return name == "__restore_rt" || name == "__default_sa_restorer" ||
         name == "__kernel_rt_sigreturn" || name == "__default_rt_sa_restorer";
}

void CrashSymbolizer::learnLoadAddresses(const std::vector<std::string>& backtrace) {
  load_addresses_.clear();
  for (const std::string& text : backtrace) {
    std::optional<FrameLine> frame = parseFrameLine(text);
    if (!frame || !frame->address || frame->dynamic)
      continue;
    std::optional<uint64_t> offset = frame->offset;
    if (!offset && !frame->symbol.empty())
      offset = resolver_.resolve(*frame, false).offset;
    if (!offset || *offset > *frame->address)
      continue;
    uint64_t base = *frame->address - *offset;
    auto [known, added] = load_addresses_.emplace(frame->module, base);
    if (!added && known->second != base)
      known->second.reset(); // the frames disagree: trust none of them
  }
}

std::optional<ResolvedFrame> CrashSymbolizer::line(llvm::StringRef text) {
  std::optional<FrameLine> frame = parseFrameLine(text);
  if (!frame) {
    frame_index_ = 0;
    after_trampoline_ = false;
    load_addresses_.clear();
    return std::nullopt;
  }
  // A symbol the file does not know, placed by the module's load address.
  auto base = load_addresses_.find(frame->module);
  if (!frame->symbol.empty() && frame->address && base != load_addresses_.end() && base->second &&
      *base->second <= *frame->address && !resolver_.resolve(*frame, false).offset) {
    frame->offset = *frame->address - *base->second;
    frame->symbol.clear();
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
