// The part of the walk that differs per CPU: the names of its program
// counter, stack pointer and frame pointer, and how a caller is recovered,
// in Breakpad's order for that CPU. One small unit per CPU (cpu_x86.cpp,
// cpu_amd64.cpp, cpu_arm.cpp, cpu_arm64.cpp, cpu_mips.cpp, cpu_riscv.cpp).
#pragma once

#include "walk/stackwalk/stack_walker.h"

#include <memory>
#include <optional>
#include <string>

namespace dumpsyms {

class CpuUnwinder {
public:
  virtual ~CpuUnwinder() = default;

  virtual const char* programCounter() const = 0;
  virtual const char* stackPointer() const = 0;

  // The caller of `frames.back()`, or nullopt when none is found.
  virtual std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                            StackWalker& walker) = 0;

  // A return address as code: arm64 strips pointer-authentication bits.
  virtual uint64_t codeAddress(uint64_t value, const StackWalker&) const { return value; }
  // Adjusts the frame the context gives (arm64 strips its link register).
  virtual void contextFrame(WalkedFrame&, const StackWalker&) const {}
  // Where in the call a caller frame's return address follows: the
  // return address less 1 (x86, amd64), 2 (arm), 4 (arm64, riscv) or two
  // instructions (mips, whose calls have a delay slot), as Breakpad takes it.
  virtual uint64_t callInstruction(uint64_t return_address) const { return return_address - 1; }

protected:
  // Breakpad's first strategy on most CPUs, the callee's STACK CFI: true
  // when CFI decided, `found` holding the caller (none: the walk ends).
  static bool decidedByCfi(const WalkedFrame& callee, StackWalker& walker,
                           std::optional<WalkedFrame>& found) {
    bool done = false;
    found = walker.callerByCfi(callee, done);
    return found || done;
  }
  // A caller found by scanning the stack, which adjustScanned may correct
  // from the slot its return address was found in.
  std::optional<WalkedFrame> byScan(const WalkedFrame& callee, bool is_context,
                                    StackWalker& walker) {
    uint64_t slot = 0;
    std::optional<WalkedFrame> caller = walker.callerByScan(callee, is_context, &slot);
    if (caller)
      adjustScanned(*caller, callee, slot, walker);
    return caller;
  }
  // The CPU's correction of a scanned caller (its frame pointer, from a
  // prologue's push right below the return address): none by default.
  virtual void adjustScanned(WalkedFrame&, const WalkedFrame&, uint64_t /*slot*/, StackWalker&) {}
  // A caller the frame pointer found: it returns to `pc`.
  bool foundByFramePointer(WalkedFrame& caller, uint64_t pc) const {
    caller.registers[programCounter()] = pc;
    caller.pc = pc;
    caller.trust = FrameTrust::FramePointer;
    return true;
  }
};

// nullptr for CPUs whose stacks are not walked.
std::unique_ptr<CpuUnwinder> cpuUnwinder(const ProcessSnapshot& snapshot);

std::unique_ptr<CpuUnwinder> x86Unwinder();
std::unique_ptr<CpuUnwinder> amd64Unwinder(bool windows);
std::unique_ptr<CpuUnwinder> armUnwinder(bool ios);
std::unique_ptr<CpuUnwinder> arm64Unwinder();
std::unique_ptr<CpuUnwinder> mipsUnwinder(bool is_64);
std::unique_ptr<CpuUnwinder> riscvUnwinder(bool is_64);

} // namespace dumpsyms
