// riscv and riscv64, in Breakpad's order: STACK CFI, then the s0 frame
// pointer (a saved s0 and return address at s0, as Breakpad reads them),
// then scanning.
#include "stackwalk/cpu_unwinder.h"

namespace dumpsyms {

namespace {

class RiscvUnwinder : public CpuUnwinder {
public:
  explicit RiscvUnwinder(bool is_64) : word_(is_64 ? 8 : 4) {}
  const char* programCounter() const override { return "pc"; }
  const char* stackPointer() const override { return "sp"; }
  uint64_t callInstruction(uint64_t return_address) const override { return return_address - 4; }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames, StackWalker& walker,
                                    std::string& end) override {
    const WalkedFrame& callee = frames.back();
    WalkedFrame caller;
    StackWalker::CfiResult cfi = walker.byCfi(callee, caller);
    if (cfi == StackWalker::CfiResult::Outermost) {
      end = "the outermost frame (its CFI has no return address)";
      return std::nullopt;
    }
    if (cfi == StackWalker::CfiResult::Found)
      return caller;
    caller = WalkedFrame();
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
    auto sp = callee.registers.find("sp");
    if (sp == callee.registers.end())
      return std::nullopt;
    uint64_t return_address = 0, slot = 0;
    if (!walker.byScan(sp->second, frames.size() == 1, return_address, slot))
      return std::nullopt;
    caller.registers = {{"pc", return_address}, {"sp", slot + word_}};
    caller.pc = return_address;
    caller.trust = FrameTrust::Scan;
    return caller;
  }

private:
  unsigned word_;
};

} // namespace

std::unique_ptr<CpuUnwinder> riscvUnwinder(bool is_64) {
  return std::make_unique<RiscvUnwinder>(is_64);
}

} // namespace dumpsyms
