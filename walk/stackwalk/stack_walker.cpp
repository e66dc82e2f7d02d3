#include "walk/stackwalk/stack_walker.h"

#include "common/limits/input_limits.h"
#include "symbol_file/rules/register_names.h"
#include "walk/stackwalk/cpu_unwinder.h"
#include "walk/symbolize/crash_symbolizer.h"

namespace dumpsyms {

namespace {

constexpr size_t kMaxFrames = limits::kMaxWalkedFrames;
// Words scanned for a return address: as Breakpad's processor, four times
// as many from the context frame, whose own frame may be large.
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
  case FrameTrust::CfiScan:
    return "cfi_scan";
  case FrameTrust::FramePointer:
    return "frame_pointer";
  case FrameTrust::Scan:
    return "scan";
  case FrameTrust::Prewalked:
    return "prewalked";
  case FrameTrust::Inline:
    return "inline";
  case FrameTrust::Leaf:
    return "leaf";
  }
  return "unknown";
}

std::unique_ptr<CpuUnwinder> cpuUnwinder(const ProcessSnapshot& snapshot) {
  bool windows = snapshot.system.os == SnapshotOs::Windows;
  switch (snapshot.cpu) {
  case SnapshotCpu::X86:
    return x86Unwinder();
  case SnapshotCpu::Amd64:
    return amd64Unwinder(windows);
  case SnapshotCpu::Arm:
    return armUnwinder(snapshot.system.os == SnapshotOs::Ios);
  case SnapshotCpu::Arm64:
    return arm64Unwinder();
  case SnapshotCpu::Mips:
  case SnapshotCpu::Mips64:
    return mipsUnwinder(snapshot.cpu == SnapshotCpu::Mips64);
  case SnapshotCpu::Riscv:
  case SnapshotCpu::Riscv64:
    return riscvUnwinder(snapshot.cpu == SnapshotCpu::Riscv64);
  default:
    return nullptr;
  }
}

StackWalker::StackWalker(const ProcessSnapshot& snapshot, SymbolSupplier& symbols,
                         WalkOptions options)
    : snapshot_(snapshot), symbols_(symbols), options_(options), cpu_(cpuUnwinder(snapshot)),
      word_size_(dumpsyms::wordSize(snapshot.cpu)) {}

std::optional<uint64_t> StackWalker::readWord(uint64_t address) const {
  // Breakpad reads only the thread's stack (where the dump gives one).
  if (options_.breakpad_rules && thread_ && thread_->stack_size > 0 &&
      (address < thread_->stack_start ||
       address - thread_->stack_start > thread_->stack_size - word_size_ ||
       thread_->stack_size < word_size_))
    return std::nullopt;
  return snapshot_.memory.readWord(address, word_size_);
}

StackWalker::~StackWalker() = default;

SymbolKey symbolKeyOf(const SnapshotModule& module) {
  // A module is known by its debug file, or its code file when the dump
  // names no debug file; stores hold them by file name alone.
  return {pathFileName(module.debug_file.empty() ? module.code_file : module.debug_file),
          module.debug_id, pathFileName(module.code_file), module.code_id};
}

void StackWalker::place(WalkedFrame& frame) {
  frame.module = moduleAt(frame.instruction);
  frame.symbols = nullptr;
  if (!frame.module)
    return;
  auto known = status_.find(frame.module);
  if (known == status_.end())
    known = status_.emplace(frame.module, symbols_.find(symbolKeyOf(*frame.module))).first;
  frame.symbols = known->second.symbols;
}

bool StackWalker::seemsCode(uint64_t address) {
  // Judged at the byte before: the call that a return address follows.
  uint64_t call = address - 1;
  if (address < kLowestCode)
    return false;
  if (!options_.breakpad_rules && snapshot_.executableAt(call) == false)
    return false;
  WalkedFrame probe;
  probe.pc = call;
  probe.instruction = call;
  place(probe);
  if (!probe.module)
    return false;
  return !probe.symbols || probe.symbols->hasCodeAt(call - probe.module->base);
}

const SnapshotModule* StackWalker::moduleAt(uint64_t address) const {
  return snapshot_.moduleAt(address, /*mapped=*/!options_.breakpad_rules);
}

bool StackWalker::isEntryPoint(const WalkedFrame& frame) const {
  if (!frame.symbols)
    return false;
  AddressInfo info = frame.symbols->lookup.lookup(frame.instruction - frame.module->base);
  std::string name =
      info.frames.empty() ? info.public_name.value_or("") : info.frames.back().function;
  return name == "_start" || name == "__start";
}

bool StackWalker::isTrampoline(const WalkedFrame& frame) const {
  if (!frame.symbols)
    return false;
  AddressInfo info = frame.symbols->lookup.lookup(frame.pc - frame.module->base);
  std::string name =
      info.frames.empty() ? info.public_name.value_or("") : info.frames.back().function;
  return isSignalTrampoline(name);
}

std::optional<WalkedFrame> StackWalker::callerByCfi(const WalkedFrame& callee, bool& done) {
  if (!callee.symbols)
    return std::nullopt;
  uint64_t offset = callee.lookupAddress() - callee.module->base;
  std::optional<CfiFrame> frame = callee.symbols->cfiAt(offset);
  if (!frame)
    return std::nullopt;
  std::map<std::string, std::string> rules = cfiRulesAt(*frame, offset);
  auto ra = rules.find(".ra");
  // The compiler marks the outermost frame (_start, clone) so. (Breakpad
  // cannot evaluate `.undef`, takes the CFI for unusable and tries the
  // frame pointer and scanning instead.)
  if (ra != rules.end() && ra->second == ".undef") {
    done = outermost_ = !options_.breakpad_rules;
    return std::nullopt;
  }
  uint16_t machine = elfMachine(snapshot_.cpu);
  auto registers = RegisterNames::forMachine(machine, word_size_ == 8);
  if (!registers)
    return std::nullopt;
  MemoryReader memory = [this](uint64_t address) { return readWord(address); };
  std::optional<RegisterValues> recovered =
      recoverCallerRegisters(rules, callee.registers, *registers, machine, memory);
  if (!recovered)
    return std::nullopt;
  WalkedFrame caller;
  caller.registers = std::move(*recovered);
  // (arm64: the recovered pc without pointer-authentication bits, in the
  // register too, as Breakpad keeps it.)
  uint64_t& pc = caller.registers[cpu_->programCounter()];
  pc = cpu_->codeAddress(pc, *this);
  caller.pc = pc;
  caller.trust = FrameTrust::Cfi;
  return caller;
}

std::optional<WalkedFrame> StackWalker::callerByScan(const WalkedFrame& callee, bool is_context,
                                                     uint64_t* found_at) {
  auto sp = callee.registers.find(cpu_->stackPointer());
  if (sp == callee.registers.end())
    return std::nullopt;
  uint64_t return_address = 0, slot = 0;
  if (!byScan(sp->second, is_context, return_address, slot))
    return std::nullopt;
  WalkedFrame caller;
  caller.registers[cpu_->programCounter()] = return_address;
  caller.registers[cpu_->stackPointer()] = slot + word_size_;
  caller.pc = return_address;
  caller.trust = FrameTrust::Scan;
  if (found_at)
    *found_at = slot;
  return caller;
}

bool StackWalker::byScan(uint64_t sp, bool is_context, uint64_t& return_address,
                         uint64_t& found_at) {
  return scanWords(sp, is_context ? kContextScanWords : kScanWords, return_address, found_at);
}

bool StackWalker::scanWords(uint64_t sp, uint64_t words, uint64_t& return_address,
                            uint64_t& found_at) {
  for (uint64_t i = 0; i <= words; ++i) {
    uint64_t location = sp + i * word_size_;
    std::optional<uint64_t> value = readWord(location);
    if (!value)
      return false;
    // (Breakpad strips no pointer-authentication bits from scanned words.)
    if (!options_.breakpad_rules)
      value = cpu_->codeAddress(*value, *this);
    if (!seemsCode(*value))
      continue;
    return_address = *value;
    found_at = location;
    return true;
  }
  return false;
}

ThreadWalk StackWalker::walk(const SnapshotThread& thread) {
  ThreadWalk walk;
  thread_ = &thread;
  if (!cpu_) {
    walk.end = std::string("the stacks of ") + cpuName(snapshot_.cpu) + " are not walked";
    return walk;
  }
  auto pc = thread.registers.find(cpu_->programCounter());
  if (pc == thread.registers.end()) {
    walk.end = "the thread has no registers";
    return walk;
  }
  WalkedFrame first;
  first.registers = thread.registers;
  first.pc = pc->second;
  first.trust = FrameTrust::Context;
  first.exact = true;
  first.instruction = first.pc;
  cpu_->contextFrame(first, *this);
  place(first);
  walk.frames.push_back(std::move(first));

  const std::string sp = cpu_->stackPointer();
  while (true) {
    if (walk.frames.size() >= kMaxFrames) {
      walk.end = "stopped at " + std::to_string(kMaxFrames) + " frames";
      break;
    }
    const WalkedFrame& callee = walk.frames.back();
    bool is_context = walk.frames.size() == 1;
    // The process's entry point has no caller, where no CFI says so
    // (arm's exception tables mark _start only as not unwindable).
    if (!options_.breakpad_rules && isEntryPoint(callee)) {
      walk.end = "the process's entry point (_start)";
      break;
    }
    outermost_ = false;
    std::optional<WalkedFrame> caller = cpu_->caller(walk.frames, *this);
    if (!caller) {
      walk.end = outermost_ ? "the outermost frame (its CFI has no return address)"
                            : "no caller found by CFI, frame pointer or stack scan";
      break;
    }
    if (caller->pc < kLowestCode) {
      walk.end = "the return address is 0 (end of the stack)";
      break;
    }
    // Stacks grow down: a caller's frame is above its callee's (but a
    // signal handler may run on its own stack, sigaltstack).
    uint64_t callee_sp = callee.registers.count(sp) ? callee.registers.at(sp) : 0;
    uint64_t caller_sp = caller->registers.count(sp) ? caller->registers.at(sp) : 0;
    bool trampolines = !options_.breakpad_rules;
    if (caller_sp <= callee_sp && !(is_context && caller_sp == callee_sp) &&
        !(trampolines && isTrampoline(callee))) {
      walk.end = "the stack pointer did not grow";
      break;
    }
    // Placed by the call the return address follows (which may be the
    // last bytes of a module); the frame a signal interrupted resumes at
    // its pc, and a trampoline's pc is its first byte, where the handler
    // returns: those are placed by pc.
    caller->instruction = cpu_->callInstruction(caller->pc);
    place(*caller);
    caller->exact = trampolines && (isTrampoline(walk.frames.back()) || isTrampoline(*caller));
    if (caller->exact) {
      caller->instruction = caller->pc;
      place(*caller);
    }
    walk.frames.push_back(std::move(*caller));
  }
  return walk;
}

} // namespace dumpsyms
