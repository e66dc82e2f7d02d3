#include "stackwalk/stack_walker.h"

#include "cfi/register_names.h"
#include "limits/input_limits.h"
#include "lookup/crash_symbolizer.h"

#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {

namespace {

constexpr size_t kMaxFrames = limits::kMaxWalkedFrames;
// Words scanned for a return address: as Breakpad's processor, four times
// as many from the crashing frame, whose own frame may be large.
constexpr uint64_t kScanWords = 40;
constexpr uint64_t kContextScanWords = 160;
// Below this a program counter is a null function pointer, not code.
constexpr uint64_t kLowestCode = 0x1000;

} // namespace

const char* trustName(FrameTrust trust) {
  switch (trust) {
  case FrameTrust::Context:
    return "context";
  case FrameTrust::Cfi:
    return "cfi";
  case FrameTrust::FramePointer:
    return "frame_pointer";
  case FrameTrust::Scan:
    return "scan";
  }
  return "unknown";
}

StackWalker::StackWalker(const CoreFile& core, const std::vector<CoreModule>& modules,
                         StoreModules& store)
    : core_(core), modules_(modules), store_(store),
      x86_64_(core.machine() == llvm::ELF::EM_X86_64) {
  sp_ = x86_64_ ? "$rsp" : "sp";
  pc_ = x86_64_ ? "$rip" : "pc";
  fp_ = x86_64_ ? "$rbp" : "x29";
}

void StackWalker::place(WalkedFrame& frame) {
  frame.module = moduleAt(modules_, frame.pc);
  frame.symbols = nullptr;
  if (!frame.module)
    return;
  auto known = symbols_.find(frame.module);
  if (known == symbols_.end()) {
    std::string problem;
    const ModuleSymbols* symbols = store_.find(frame.module->name, frame.module->debug_id, problem);
    if (!symbols)
      missing_[frame.module] = problem;
    known = symbols_.emplace(frame.module, symbols).first;
  }
  frame.symbols = known->second;
}

// As the processor asks of a scanned word or a frame-pointer return address:
// is it in a module's executable mapping and, where the module has symbols,
// inside a FUNC or after a PUBLIC?
bool StackWalker::seemsCode(uint64_t address) {
  if (address < kLowestCode)
    return false;
  const CoreSegment* segment = core_.segmentAt(address);
  if (segment && !segment->executable)
    return false;
  WalkedFrame probe;
  probe.pc = address;
  place(probe);
  if (!probe.module)
    return false;
  return !probe.symbols || probe.symbols->hasCodeAt(address - probe.module->base);
}

bool StackWalker::isTrampoline(const WalkedFrame& frame) const {
  if (!frame.symbols)
    return false;
  AddressInfo info = frame.symbols->lookup.lookup(frame.pc - frame.module->base);
  std::string name =
      info.frames.empty() ? info.public_name.value_or("") : info.frames.back().function;
  return isSignalTrampoline(name);
}

StackWalker::CfiResult StackWalker::byCfi(const WalkedFrame& callee, WalkedFrame& caller) {
  if (!callee.symbols)
    return CfiResult::None;
  // A return address follows its call: the call is the byte before, and
  // may be the last instruction of its function.
  uint64_t offset = callee.pc - callee.module->base - (callee.exact ? 0 : 1);
  const CfiFrame* frame = callee.symbols->cfiAt(offset);
  if (!frame)
    return CfiResult::None;
  std::map<std::string, std::string> rules = cfiRulesAt(*frame, offset);
  auto ra = rules.find(".ra");
  // The compiler marks the outermost frame (_start, clone) so.
  if (ra != rules.end() && ra->second == ".undef")
    return CfiResult::Outermost;
  auto registers = RegisterNames::forMachine(core_.machine(), true);
  if (!registers)
    return CfiResult::None;
  MemoryReader memory = [this](uint64_t address) { return core_.readWord(address, 8); };
  std::optional<RegisterValues> recovered =
      recoverCallerRegisters(rules, callee.registers, *registers, core_.machine(), memory);
  if (!recovered)
    return CfiResult::None;
  caller.registers = std::move(*recovered);
  caller.pc = caller.registers[pc_];
  caller.trust = FrameTrust::Cfi;
  return CfiResult::Found;
}

bool StackWalker::byFramePointer(const WalkedFrame& callee, WalkedFrame& caller) {
  auto fp = callee.registers.find(fp_);
  auto sp = callee.registers.find(sp_);
  if (fp == callee.registers.end() || sp == callee.registers.end())
    return false;
  uint64_t frame = fp->second;
  if (frame == 0 || frame % 8 != 0 || frame < sp->second)
    return false;
  std::optional<uint64_t> saved_fp = core_.readWord(frame, 8);
  std::optional<uint64_t> return_address = core_.readWord(frame + 8, 8);
  if (!saved_fp || !return_address || !seemsCode(*return_address))
    return false;
  caller.registers.clear();
  caller.registers[fp_] = *saved_fp;
  caller.registers[sp_] = frame + 16;
  caller.registers[pc_] = *return_address;
  caller.pc = *return_address;
  caller.trust = FrameTrust::FramePointer;
  return true;
}

bool StackWalker::byScan(const WalkedFrame& callee, bool is_context, WalkedFrame& caller) {
  auto sp = callee.registers.find(sp_);
  if (sp == callee.registers.end())
    return false;
  uint64_t words = is_context ? kContextScanWords : kScanWords;
  for (uint64_t i = 0; i < words; ++i) {
    uint64_t location = sp->second + i * 8;
    std::optional<uint64_t> value = core_.readWord(location, 8);
    if (!value)
      return false;
    if (!seemsCode(*value))
      continue;
    caller.registers.clear();
    caller.registers[pc_] = *value;
    caller.registers[sp_] = location + 8;
    // A frame-pointer prologue pushed the caller's frame pointer right below
    // the return address; otherwise the register kept its value.
    auto fp = callee.registers.find(fp_);
    if (fp != callee.registers.end()) {
      std::optional<uint64_t> pushed;
      if (fp->second == location - 8)
        pushed = core_.readWord(location - 8, 8);
      caller.registers[fp_] = pushed ? *pushed : fp->second;
    }
    caller.pc = *value;
    caller.trust = FrameTrust::Scan;
    return true;
  }
  return false;
}

ThreadWalk StackWalker::walk(const CoreThread& thread) {
  ThreadWalk walk;
  WalkedFrame first;
  first.registers = thread.registers;
  first.pc = thread.registers.count(pc_) ? thread.registers.at(pc_) : 0;
  first.trust = FrameTrust::Context;
  first.exact = true;
  place(first);
  walk.frames.push_back(std::move(first));

  while (true) {
    if (walk.frames.size() >= kMaxFrames) {
      walk.end = "stopped at " + std::to_string(kMaxFrames) + " frames";
      break;
    }
    const WalkedFrame& callee = walk.frames.back();
    bool is_context = walk.frames.size() == 1;
    WalkedFrame caller;
    CfiResult cfi = byCfi(callee, caller);
    if (cfi == CfiResult::Outermost) {
      walk.end = "the outermost frame (its CFI has no return address)";
      break;
    }
    if (cfi == CfiResult::None && !byFramePointer(callee, caller) &&
        !byScan(callee, is_context, caller)) {
      walk.end = "no caller found by CFI, frame pointer or stack scan";
      break;
    }
    if (caller.pc < kLowestCode) {
      walk.end = "the return address is 0 (end of the stack)";
      break;
    }
    // Stacks grow down: a caller's frame is above its callee's (but a
    // signal handler may run on its own stack, sigaltstack).
    uint64_t callee_sp = callee.registers.count(sp_) ? callee.registers.at(sp_) : 0;
    uint64_t caller_sp = caller.registers.count(sp_) ? caller.registers.at(sp_) : 0;
    if (caller_sp <= callee_sp && !(is_context && caller_sp == callee_sp) &&
        !isTrampoline(callee)) {
      walk.end = "the stack pointer did not grow";
      break;
    }
    place(caller);
    // The frame a signal interrupted resumes at its pc; a trampoline's
    // pc is its first byte, where the handler returns.
    caller.exact = isTrampoline(walk.frames.back()) || isTrampoline(caller);
    walk.frames.push_back(std::move(caller));
  }
  return walk;
}

} // namespace dumpsyms
