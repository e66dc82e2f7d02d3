// mips and mips64, in Breakpad's order: STACK CFI, then scanning; no frame
// pointer. A call's return address is two instructions past it (the delay
// slot), and Breakpad's frames hold the call itself.
#include "walk/stackwalk/cpu_unwinder.h"

namespace dumpsyms {

namespace {

class MipsUnwinder : public CpuUnwinder {
public:
  explicit MipsUnwinder(bool is_64) : word_(is_64 ? 8 : 4) {}
  const char* programCounter() const override { return "$pc"; }
  const char* stackPointer() const override { return "$sp"; }
  uint64_t callInstruction(uint64_t return_address) const override {
    return return_address - 2 * word_;
  }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    const WalkedFrame& callee = frames.back();
    bool done = false;
    std::optional<WalkedFrame> found = walker.callerByCfi(callee, done);
    if (found)
      found->registers["$ra"] = found->pc;
    if (found || done)
      return found;
    WalkedFrame caller;
    // Breakpad scans a 1 KiB window for a return address whose frame's
    // saved frame pointer lies within it.
    auto sp = callee.registers.find("$sp");
    if (sp == callee.registers.end())
      return std::nullopt;
    uint64_t start = sp->second, words = 1024 / word_;
    if (word_ == 4 && frames.size() > 1) {
      start += 4 * word_; // the argument area
      words -= 4;
    }
    uint64_t return_address = 0, slot = 0;
    while (walker.scanWords(start, words, return_address, slot)) {
      std::optional<uint64_t> fp = walker.readWord(slot - word_);
      uint64_t used = (slot - start) / word_ + 1;
      if (fp && (*fp - slot) < 1024) {
        caller.registers = {{"$sp", slot + word_}, {"$ra", return_address}, {"$fp", *fp}};
        caller.registers["$pc"] = return_address;
        caller.pc = return_address;
        caller.trust = FrameTrust::Scan;
        return caller;
      }
      if (used > words)
        break;
      words -= used;
      start = slot + word_;
    }
    return std::nullopt;
  }

private:
  unsigned word_;
};

} // namespace

std::unique_ptr<CpuUnwinder> mipsUnwinder(bool is_64) {
  return std::make_unique<MipsUnwinder>(is_64);
}

} // namespace dumpsyms
