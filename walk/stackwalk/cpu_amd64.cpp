// amd64, in Breakpad's order: STACK CFI; then, on Windows and from the
// context frame only, a simulated return from a leaf function (no CFI, so
// no prologue: the return address is on top of the stack); then the RBP
// chain (not on Windows, where RBP is no frame pointer); then scanning.
#include "walk/stackwalk/cpu_unwinder.h"

namespace dumpsyms {

namespace {

class Amd64Unwinder : public CpuUnwinder {
public:
  explicit Amd64Unwinder(bool windows) : windows_(windows) {}
  const char* programCounter() const override { return "$rip"; }
  const char* stackPointer() const override { return "$rsp"; }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    const WalkedFrame& callee = frames.back();
    bool is_context = frames.size() == 1;
    bool done = false;
    std::optional<WalkedFrame> caller = walker.callerByCfi(callee, done);
    // (Breakpad also wants both non-zero.)
    if (done || (caller && caller->registers["$rip"] != 0 && caller->registers["$rsp"] != 0))
      return caller;
    caller = WalkedFrame();
    if (windows_ && is_context && leafReturn(callee, walker, *caller))
      return caller;
    if (!windows_ && byFramePointer(callee, walker, *caller))
      return caller;
    return byScan(callee, is_context, walker);
  }

private:
  // The slots at rsp and rsp + 8: a leaf has pushed nothing, or one thing.
  bool leafReturn(const WalkedFrame& callee, StackWalker& walker, WalkedFrame& caller) {
    auto sp = callee.registers.find("$rsp");
    if (sp == callee.registers.end())
      return false;
    uint64_t return_address = 0, slot = 0;
    if (!walker.scanWords(sp->second, 1, return_address, slot))
      return false;
    caller.registers = callee.registers;
    caller.registers["$rip"] = return_address;
    caller.registers["$rsp"] = slot + 8;
    caller.pc = return_address;
    caller.trust = FrameTrust::Leaf;
    return true;
  }

  bool byFramePointer(const WalkedFrame& callee, StackWalker& walker, WalkedFrame& caller) {
    auto fp = callee.registers.find("$rbp");
    if (fp == callee.registers.end() || fp->second % 8 != 0)
      return false;
    uint64_t frame = fp->second;
    std::optional<uint64_t> saved_fp = walker.readWord(frame);
    std::optional<uint64_t> return_address = walker.readWord(frame + 8);
    if (!saved_fp || !return_address)
      return false;
    uint64_t sp = frame + 16;
    // A non-canonical return address, a frame at the top of the address
    // space, or a caller frame below its stack pointer is no frame.
    bool canonical = *return_address < 0x0000800000000000 || *return_address > 0xffff7fffffffffff;
    if (!canonical || sp <= frame || *saved_fp < sp || !walker.readable(*saved_fp))
      return false;
    caller.registers["$rbp"] = *saved_fp;
    caller.registers["$rsp"] = sp;
    return foundByFramePointer(caller, *return_address);
  }

  void adjustScanned(WalkedFrame& caller, const WalkedFrame& callee, uint64_t slot,
                     StackWalker& walker) override {
    // A frame-pointer prologue pushed the caller's RBP right below the
    // return address; a callee RBP above the slot is still the caller's.
    if (auto fp = callee.registers.find("$rbp"); fp != callee.registers.end()) {
      std::optional<uint64_t> pushed =
          fp->second == slot - 8 ? walker.readWord(fp->second) : std::nullopt;
      if (pushed && *pushed > slot)
        caller.registers["$rbp"] = *pushed;
      else if (fp->second >= slot + 8)
        caller.registers["$rbp"] = fp->second;
    }
  }

  bool windows_;
};

} // namespace

std::unique_ptr<CpuUnwinder> amd64Unwinder(bool windows) {
  return std::make_unique<Amd64Unwinder>(windows);
}

} // namespace dumpsyms
