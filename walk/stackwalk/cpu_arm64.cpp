// arm64, in Breakpad's order: STACK CFI, then the x29 frame-record chain,
// then scanning. Return addresses may carry pointer-authentication bits
// above the address space the modules use: they are stripped (the mask is
// the smallest all-ones value that covers the highest module end, and a
// stripped value must land in a module), as Breakpad strips them.
#include "walk/stackwalk/cpu_unwinder.h"

#include <algorithm>

namespace dumpsyms {

namespace {

class Arm64Unwinder : public CpuUnwinder {
public:
  const char* programCounter() const override { return "pc"; }
  const char* stackPointer() const override { return "sp"; }
  uint64_t callInstruction(uint64_t return_address) const override { return return_address - 4; }

  uint64_t codeAddress(uint64_t value, const StackWalker& walker) const override {
    uint64_t stripped = value & addressMask(walker.snapshot());
    return walker.moduleAt(stripped) ? stripped : value;
  }

  void contextFrame(WalkedFrame& frame, const StackWalker& walker) const override {
    if (auto lr = frame.registers.find("x30"); lr != frame.registers.end())
      lr->second = codeAddress(lr->second, walker);
  }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    const WalkedFrame& callee = frames.back();
    if (std::optional<WalkedFrame> found; decidedByCfi(callee, walker, found))
      return found;
    if (WalkedFrame caller; walker.options().breakpad_rules ? byLinkRegister(frames, walker, caller)
                                                            : byFrameRecord(callee, walker, caller))
      return caller;
    return byScan(callee, frames.size() == 1, walker);
  }

private:
  uint64_t addressMask(const ProcessSnapshot& snapshot) const {
    if (mask_)
      return *mask_;
    uint64_t highest = snapshot.modules.empty() ? 0 : snapshot.modules.back().end();
    for (const SnapshotModule& module : snapshot.modules)
      highest = std::max(highest, module.end());
    uint64_t mask = 0;
    while (mask < highest && mask != UINT64_MAX)
      mask = (mask << 1) | 1;
    mask_ = highest ? mask : UINT64_MAX;
    return *mask_;
  }

  // Ours: the frame record at x29 holds the caller's x29 and the address
  // the callee returns to.
  bool byFrameRecord(const WalkedFrame& callee, StackWalker& walker, WalkedFrame& caller) {
    auto fp = callee.registers.find("x29");
    auto sp = callee.registers.find("sp");
    if (fp == callee.registers.end() || sp == callee.registers.end())
      return false;
    uint64_t frame = fp->second;
    if (frame == 0 || frame % 8 != 0 || frame < sp->second)
      return false;
    std::optional<uint64_t> saved_fp = walker.readWord(frame);
    std::optional<uint64_t> saved_lr = walker.readWord(frame + 8);
    if (!saved_fp || !saved_lr)
      return false;
    uint64_t return_address = codeAddress(*saved_lr, walker);
    if (!walker.seemsCode(return_address))
      return false;
    caller.registers["x29"] = *saved_fp;
    caller.registers["sp"] = frame + 16;
    return foundByFramePointer(caller, return_address);
  }

  // Breakpad's: the caller's pc is the callee's link register; the frame
  // record gives the caller's own x29 and link register. A callee whose
  // link register is unknown takes it from the record of the frame below
  // when that record links to the callee's.
  bool byLinkRegister(const std::vector<WalkedFrame>& frames, StackWalker& walker,
                      WalkedFrame& caller) {
    const WalkedFrame& callee = frames.back();
    auto known = [&](const char* name) -> std::optional<uint64_t> {
      auto found = callee.registers.find(name);
      if (found != callee.registers.end())
        return found->second;
      return std::nullopt;
    };
    std::optional<uint64_t> fp = known("x29");
    if (!fp)
      fp = callee.stale_frame_pointer;
    std::optional<uint64_t> lr = known("x30");
    std::optional<uint64_t> sp = known("sp");
    if (!lr && frames.size() >= 2 && fp && sp && *fp > *sp) {
      const WalkedFrame& below = frames[frames.size() - 2];
      auto below_fp = below.registers.find("x29");
      if (below_fp != below.registers.end())
        if (std::optional<uint64_t> linked = walker.readWord(below_fp->second);
            linked && *linked == *fp)
          if (std::optional<uint64_t> saved = walker.readWord(below_fp->second + 8))
            lr = codeAddress(*saved, walker);
    }
    if (!fp || !lr || !sp)
      return false;
    if (*fp == 0) {
      caller.registers["x29"] = 0;
      caller.registers["x30"] = 0;
      caller.registers["sp"] = *sp;
    } else {
      std::optional<uint64_t> saved_fp = walker.readWord(*fp);
      std::optional<uint64_t> saved_lr = walker.readWord(*fp + 8);
      if (!saved_fp || !saved_lr)
        return false;
      caller.registers["x29"] = *saved_fp;
      caller.registers["x30"] = codeAddress(*saved_lr, walker);
      caller.registers["sp"] = *fp + 16;
    }
    return foundByFramePointer(caller, *lr);
  }

  void adjustScanned(WalkedFrame& caller, const WalkedFrame& callee, uint64_t slot,
                     StackWalker& walker) override {
    auto fp = callee.registers.find("x29");
    if (walker.options().breakpad_rules) {
      caller.stale_frame_pointer =
          fp != callee.registers.end() ? std::optional(fp->second) : callee.stale_frame_pointer;
    } else if (fp != callee.registers.end()) {
      // A frame record pushed right below the return address's slot is
      // the caller's; otherwise the register kept its value.
      std::optional<uint64_t> pushed;
      if (fp->second == slot - 8)
        pushed = walker.readWord(slot - 8);
      caller.registers["x29"] = pushed ? *pushed : fp->second;
    }
  }

  mutable std::optional<uint64_t> mask_;
};

} // namespace

std::unique_ptr<CpuUnwinder> arm64Unwinder() {
  return std::make_unique<Arm64Unwinder>();
}

} // namespace dumpsyms
