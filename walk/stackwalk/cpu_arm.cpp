// 32-bit arm, in Breakpad's order: STACK CFI (not on iOS), then the r7
// frame-pointer chain (iOS only: Breakpad follows no r11 chain), then
// scanning; ours returns from a context frame without CFI to its link
// register first.
#include "walk/stackwalk/cpu_unwinder.h"

namespace dumpsyms {

namespace {

class ArmUnwinder : public CpuUnwinder {
public:
  explicit ArmUnwinder(bool ios) : ios_(ios) {}
  const char* programCounter() const override { return "pc"; }
  const char* stackPointer() const override { return "sp"; }
  uint64_t callInstruction(uint64_t return_address) const override { return return_address - 2; }
  // A return into Thumb code has bit 0 set (it says the mode, not the
  // address); Breakpad keeps it.
  uint64_t codeAddress(uint64_t value, const StackWalker& walker) const override {
    return walker.options().breakpad_rules ? value : value & ~uint64_t(1);
  }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    const WalkedFrame& callee = frames.back();
    if (!ios_)
      if (std::optional<WalkedFrame> found; decidedByCfi(callee, walker, found))
        return found;
    WalkedFrame caller;
    if (ios_ && byFramePointer(callee, walker, caller))
      return caller;
    // Ours: a context frame without CFI (hand-written assembly such as
    // libc's string functions, whose exception table says nothing) is most
    // likely a leaf, which returns to the link register.
    if (!walker.options().breakpad_rules && frames.size() == 1 &&
        byLinkRegister(callee, walker, caller))
      return caller;
    return walker.callerByScan(callee, frames.size() == 1);
  }

private:
  bool byLinkRegister(const WalkedFrame& callee, StackWalker& walker, WalkedFrame& caller) {
    auto lr = callee.registers.find("lr");
    auto sp = callee.registers.find("sp");
    if (lr == callee.registers.end() || sp == callee.registers.end())
      return false;
    uint64_t return_address = codeAddress(lr->second, walker);
    if (!walker.seemsCode(return_address))
      return false;
    caller.registers = callee.registers;
    caller.registers["pc"] = return_address;
    caller.registers.erase("lr");
    caller.pc = return_address;
    caller.trust = FrameTrust::Leaf;
    return true;
  }

  bool byFramePointer(const WalkedFrame& callee, StackWalker& walker, WalkedFrame& caller) {
    auto fp = callee.registers.find("r7");
    auto lr = callee.registers.find("lr");
    auto sp = callee.registers.find("sp");
    if (fp == callee.registers.end() || lr == callee.registers.end() ||
        sp == callee.registers.end())
      return false;
    if (fp->second == 0) {
      caller.registers = {{"r7", 0}, {"lr", 0}, {"sp", sp->second}};
    } else {
      std::optional<uint64_t> saved_fp = walker.readWord(fp->second);
      std::optional<uint64_t> saved_lr = walker.readWord(fp->second + 4);
      if (!saved_fp || !saved_lr)
        return false;
      caller.registers = {{"r7", *saved_fp}, {"lr", *saved_lr}, {"sp", fp->second + 8}};
    }
    return foundByFramePointer(caller, lr->second);
  }

  bool ios_;
};

} // namespace

std::unique_ptr<CpuUnwinder> armUnwinder(bool ios) {
  return std::make_unique<ArmUnwinder>(ios);
}

} // namespace dumpsyms
