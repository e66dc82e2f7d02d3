// x86, in Breakpad's order: STACK WIN (a FrameData program first, else an
// FPO record with the program Breakpad synthesizes for it), then STACK
// CFI, then the EBP chain, then scanning.
//
// STACK WIN, as Breakpad's processor runs it: the evaluator is seeded with
// the callee's $ebp, $esp (and $ebx when known), the record's sizes, the
// parameter size of the frame it called (.cbCalleeParams) and
// .raSearchStart, where the return address should be (the callee's locals,
// saved registers and its callee's parameters above $esp, moved to the
// first word within 4 that looks like a return address; for programs that
// realign the stack with `@`, $ebp + 4). When the program fails, or leaves
// a return address outside every module, the stack is scanned instead, and
// an $ebp that points nowhere is searched for among the saved registers.
#include "symbol_file/rules/postfix_evaluator.h"
#include "walk/stackwalk/cpu_unwinder.h"

#include <map>
#include <set>

namespace dumpsyms {

namespace {

constexpr uint32_t kFrameData = 4;
constexpr uint32_t kFpo = 0;

// A STACK WIN record, or (no record, but a FUNC covers the frame) just the
// FUNC's parameter size, as Breakpad's FindWindowsFrameInfo answers.
struct FrameInfo {
  std::optional<StackWinRecord> record;
  std::optional<uint64_t> parameter_size;
};

class X86Unwinder : public CpuUnwinder {
public:
  const char* programCounter() const override { return "$eip"; }
  const char* stackPointer() const override { return "$esp"; }

  std::optional<WalkedFrame> caller(const std::vector<WalkedFrame>& frames,
                                    StackWalker& walker) override {
    // A new thread's walk: the frames known so far are this thread's.
    if (frames.size() == 1)
      parameter_sizes_.clear();
    parameter_sizes_.resize(frames.size());
    const WalkedFrame& callee = frames.back();
    FrameInfo info = frameInfo(callee);
    parameter_sizes_.back() = info.parameter_size;
    if (info.record)
      if (std::optional<WalkedFrame> found = byStackWin(frames, *info.record, walker))
        return found;
    bool done = false;
    std::optional<WalkedFrame> caller = walker.callerByCfi(callee, done);
    if (done || (caller && caller->registers.count("$eip") && caller->registers.count("$esp") &&
                 caller->registers.count("$ebp")))
      return caller;
    return byEbp(callee, frames.size() == 1, walker);
  }

private:
  FrameInfo frameInfo(const WalkedFrame& frame) const {
    FrameInfo info;
    if (!frame.symbols)
      return info;
    uint64_t offset = frame.lookupAddress() - frame.module->base;
    info.record = frame.symbols->stackWinAt(offset, kFrameData);
    if (!info.record)
      info.record = frame.symbols->stackWinAt(offset, kFpo);
    if (info.record) {
      info.parameter_size = info.record->parameter_size;
      return info;
    }
    AddressInfo found = frame.symbols->lookup.lookup(offset);
    if (!found.frames.empty())
      info.parameter_size = found.parameter_size;
    return info;
  }

  // The bytes of arguments the frame below the callee pushed for it.
  uint64_t calleeParameters(const StackWalker& walker) const {
    uint64_t size = 0;
    if (parameter_sizes_.size() < 2)
      return 0;
    if (!walker.options().breakpad_rules) {
      const std::optional<uint64_t>& below = parameter_sizes_[parameter_sizes_.size() - 2];
      return below.value_or(0);
    }
    // Breakpad's loop runs from the frame below down to the context frame
    // without stopping: the lowest frame with a size wins.
    for (size_t i = parameter_sizes_.size() - 1; i-- > 0;)
      if (parameter_sizes_[i])
        size = *parameter_sizes_[i];
    return size;
  }

  std::optional<WalkedFrame> byStackWin(const std::vector<WalkedFrame>& frames,
                                        const StackWinRecord& record, StackWalker& walker) {
    const WalkedFrame& callee = frames.back();
    bool is_context = callee.trust == FrameTrust::Context;
    auto known = [&](const char* name) { return callee.registers.count(name) > 0; };
    if (!known("$esp") || !known("$ebp") || !known("$eip"))
      return std::nullopt;
    const uint32_t esp = static_cast<uint32_t>(callee.registers.at("$esp"));
    const uint32_t ebp = static_cast<uint32_t>(callee.registers.at("$ebp"));
    const uint32_t callee_parameters = static_cast<uint32_t>(calleeParameters(walker));

    RegisterValues values;
    values["$ebp"] = ebp;
    values["$esp"] = esp;
    if (known("$ebx"))
      values["$ebx"] = callee.registers.at("$ebx");
    values[".cbCalleeParams"] = callee_parameters;
    values[".cbSavedRegs"] = record.saved_registers_size;
    values[".cbLocals"] = record.locals_size;
    values[".cbParams"] = record.parameter_size;

    uint32_t search_start = esp + callee_parameters + static_cast<uint32_t>(record.locals_size) +
                            static_cast<uint32_t>(record.saved_registers_size);
    uint64_t found = 0, slot = 0;
    // Ours, where Breakpad's slot holds no return address: compilers that
    // store a call's arguments into space their frame already reserved
    // (clang, gcc) count that space in the caller's locals, so the callee's
    // parameters are not also below them.
    auto returnAt = [&](uint32_t at) {
      std::optional<uint64_t> word = walker.readWord(at);
      return word && walker.seemsCode(*word);
    };
    // And a context frame stopped just after a call whose callee popped
    // its arguments (__stdcall, __thiscall), before the caller moves its
    // stack pointer back, has its return address that much lower.
    std::optional<uint32_t> ours;
    if (!walker.options().breakpad_rules && !returnAt(search_start)) {
      uint32_t without_parameters = search_start - callee_parameters;
      if (callee_parameters > 0 && returnAt(without_parameters))
        ours = without_parameters;
      // That call's return address is still below the stack pointer, where
      // the call pushed it before the callee popped it and the arguments.
      uint32_t pc = static_cast<uint32_t>(callee.registers.at("$eip"));
      for (uint32_t popped = 4; !ours && is_context && popped <= 64; popped += 4)
        if (walker.readWord(esp - 4 - popped) == pc && returnAt(search_start - popped))
          ours = search_start - popped;
    }
    if (ours) {
      search_start = *ours;
    } else if (walker.scanWords(search_start, 3, found, slot)) {
      uint32_t unadjusted = search_start;
      search_start = static_cast<uint32_t>(slot);
      // A context frame stopped in a system call whose FPO record counts
      // the return address into the call as the return address: one more.
      if (is_context && record.type == kFpo && slot == unadjusted &&
          found == static_cast<uint32_t>(callee.registers.at("$eip"))) {
        search_start += 4;
        if (walker.scanWords(search_start, 3, found, slot))
          search_start = static_cast<uint32_t>(slot);
      }
    }

    std::string program;
    bool recover_ebp = true;
    FrameTrust trust = FrameTrust::Cfi;
    if (!record.program.empty()) {
      program = record.program;
    } else if (record.allocates_base_pointer) {
      program = "$eip .raSearchStart ^ = $ebp $esp .cbCalleeParams + .cbSavedRegs + 8 - ^ = "
                "$esp .raSearchStart 4 + =";
    } else {
      program = "$eip .raSearchStart ^ = $esp .raSearchStart 4 + =";
      if (known("$ebx"))
        program += " $ebx $ebx =";
      recover_ebp = false;
    }
    // A frame that aligns its stack (`@`) is found from its frame pointer.
    if (program.find('@') != std::string::npos)
      search_start = ebp + 4;
    values[".raSearchStart"] = search_start;
    values[".raSearch"] = search_start;

    PostfixEvaluator evaluator(4, [&walker](uint64_t address) { return walker.readWord(address); });
    std::set<std::string> assigned;
    if (!evaluator.execute(program, values, &assigned) || !assigned.count("$eip") ||
        !assigned.count("$esp")) {
      if (!walker.byScan(esp, is_context, found, slot))
        return std::nullopt;
      values["$eip"] = found;
      values["$esp"] = slot + 4;
      trust = FrameTrust::Scan;
    }

    uint32_t new_eip = static_cast<uint32_t>(values["$eip"]);
    uint32_t new_ebp = static_cast<uint32_t>(values["$ebp"]);
    if (new_eip != 0 || new_ebp != 0) {
      int64_t offset = 0;
      // A return address outside every module: the program was wrong
      // about where it is; scan on from where it looked.
      if (!walker.moduleAt(new_eip)) {
        uint32_t from = static_cast<uint32_t>(values[".raSearchStart"]) + 4;
        if (walker.byScan(from, is_context, found, slot)) {
          values["$eip"] = found;
          values["$esp"] = slot + 4;
          offset = static_cast<int64_t>(slot) - from;
          trust = FrameTrust::CfiScan;
        }
      }
      if (recover_ebp) {
        bool skipped_frames =
            trust != FrameTrust::Cfi && int64_t(new_ebp) <= int64_t(search_start) + offset;
        if (skipped_frames || !walker.readable(new_ebp)) {
          // Among the saved registers, the first word that points into
          // the stack is taken for the caller's frame pointer.
          int64_t lowest = int64_t(esp) + callee_parameters;
          for (int64_t location = lowest + int64_t(record.saved_registers_size) + offset;
               location >= lowest && location >= 0; location -= 4) {
            std::optional<uint64_t> word = walker.readWord(uint64_t(location));
            if (!word)
              break;
            if (walker.readable(*word)) {
              values["$ebp"] = *word;
              break;
            }
          }
        }
      }
    }

    WalkedFrame caller;
    caller.trust = trust;
    caller.registers["$eip"] = values["$eip"] & 0xffffffff;
    caller.registers["$esp"] = values["$esp"] & 0xffffffff;
    caller.registers["$ebp"] = values["$ebp"] & 0xffffffff;
    for (const char* name : {"$ebx", "$esi", "$edi"})
      if (assigned.count(name))
        caller.registers[name] = values[name] & 0xffffffff;
    caller.pc = caller.registers["$eip"];
    return caller;
  }

  std::optional<WalkedFrame> byEbp(const WalkedFrame& callee, bool is_context,
                                   StackWalker& walker) {
    WalkedFrame caller;
    auto ebp = callee.registers.find("$ebp");
    if (ebp != callee.registers.end()) {
      std::optional<uint64_t> eip = walker.readWord(ebp->second + 4);
      std::optional<uint64_t> saved = walker.readWord(ebp->second);
      if (eip && saved) {
        caller.registers["$eip"] = *eip;
        caller.registers["$ebp"] = *saved;
        caller.registers["$esp"] = (ebp->second + 8) & 0xffffffff;
        caller.pc = *eip;
        caller.trust = FrameTrust::FramePointer;
        return caller;
      }
    }
    uint64_t slot = 0;
    std::optional<WalkedFrame> scanned = walker.callerByScan(callee, is_context, &slot);
    if (!scanned)
      return scanned;
    // The word below the return address is the caller's EBP if it points
    // a little way up the stack (a frame-pointer prologue pushed it).
    constexpr uint64_t kMaxReasonableGap = 128 * 1024;
    uint64_t below = slot + 4 - 8;
    std::optional<uint64_t> pushed = walker.readWord(below);
    if (pushed && *pushed > below && *pushed - below <= kMaxReasonableGap)
      scanned->registers["$ebp"] = *pushed;
    else if (ebp != callee.registers.end())
      scanned->registers["$ebp"] = ebp->second;
    return scanned;
  }

  // Per frame of the thread being walked: the parameter size its frame
  // information gave (Breakpad keeps it on the frame).
  std::vector<std::optional<uint64_t>> parameter_sizes_;
};

} // namespace

std::unique_ptr<CpuUnwinder> x86Unwinder() {
  return std::make_unique<X86Unwinder>();
}

} // namespace dumpsyms
