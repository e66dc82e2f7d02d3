// riscv and riscv64, in Breakpad's order: STACK CFI, then the s0 frame
// pointer (a saved s0 and return address at s0, as Breakpad reads them),
// then scanning.
#include "walk/stackwalk/cpu_unwinder.h"

namespace dumpsyms {

namespace {

class RiscvUnwinder : public CpuUnwinder {
public:
  explicit RiscvUnwinder(bool is_64) : word_(is_64 ? 8 : 4) {}
  const char* programCounter() const override { return "pc"; }
  const char* stackPointer() const override { return "sp"; }
  uint64_t callInstruction(uint64_t return_address) const override { return return_address - 4; }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    const WalkedFrame& callee = frames.back();
    if (std::optional<WalkedFrame> found; decidedByCfi(callee, walker, found))
      return found;
    WalkedFrame caller;
    auto fp = callee.registers.find("s0");
    auto ra = callee.registers.find("ra");
    if (fp != callee.registers.end() && ra != callee.registers.end()) {
      if (fp->second == 0) {
        caller.registers = {{"s0", 0}, {"sp", 0}, {"ra", 0}};
      } else {
        // (Breakpad reads the pair at s0 upward, as arm64's frame record.)
        std::optional<uint64_t> saved_fp = walker.readWord(fp->second);
        std::optional<uint64_t> saved_ra = walker.readWord(fp->second + word_);
        if (saved_fp && saved_ra)
          caller.registers = {{"s0", *saved_fp}, {"ra", *saved_ra}, {"sp", fp->second + 2 * word_}};
      }
      if (!caller.registers.empty()) {
        caller.registers["pc"] = ra->second;
        caller.pc = ra->second;
        caller.trust = FrameTrust::FramePointer;
        return caller;
      }
    }
    return walker.callerByScan(callee, frames.size() == 1);
  }

private:
  unsigned word_;
};

} // namespace

std::unique_ptr<CpuUnwinder> riscvUnwinder(bool is_64) {
  return std::make_unique<RiscvUnwinder>(is_64);
}

} // namespace dumpsyms
