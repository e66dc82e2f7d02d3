#include "dump/cfi/compact_unwind_rules.h"

#include <algorithm>
#include <llvm/BinaryFormat/MachO.h>
#include <llvm/Support/Endian.h>
#include <map>
#include <vector>

namespace dumpsyms {

namespace {

// The encodings' fields (libunwind's compact_unwind_encoding.h).
constexpr uint32_t kModeMask = 0x0f000000;
constexpr uint32_t kX64RbpFrame = 0x01000000, kX64StackImmediate = 0x02000000,
                   kX64StackIndirect = 0x03000000, kX64Dwarf = 0x04000000;
constexpr uint32_t kArm64Frameless = 0x02000000, kArm64Dwarf = 0x03000000, kArm64Frame = 0x04000000;

// A frame state: the CFA as a register plus an offset, and where each
// saved register is, as an offset from the CFA. Registers by Breakpad name.
struct FrameState {
  std::string cfa_register;
  int64_t cfa_offset = 0;
  std::map<std::string, int64_t> saved; // ".ra" included when it is in memory
  std::string ra_register;              // ".ra" in a register (arm64's x30) when not saved

  bool operator==(const FrameState&) const = default;
};

std::string offsetText(int64_t offset) {
  return offset < 0 ? "-" + std::to_string(-offset) : std::to_string(offset);
}

// The state as rules, .cfa and .ra first.
std::vector<CfiRule> rulesOf(const FrameState& state) {
  std::vector<CfiRule> rules;
  rules.push_back({".cfa", state.cfa_register + " " + std::to_string(state.cfa_offset) + " +"});
  if (auto ra = state.saved.find(".ra"); ra != state.saved.end())
    rules.push_back({".ra", ".cfa " + offsetText(ra->second) + " + ^"});
  else
    rules.push_back({".ra", state.ra_register});
  for (const auto& [name, offset] : state.saved)
    if (name != ".ra")
      rules.push_back({name, ".cfa " + offsetText(offset) + " + ^"});
  return rules;
}

// The rules of `after` that differ from `before`'s: a STACK CFI row.
std::vector<CfiRule> changedRules(const FrameState& before, const FrameState& after) {
  std::vector<CfiRule> all = rulesOf(after), old = rulesOf(before), changed;
  for (const CfiRule& rule : all) {
    bool same = false;
    for (const CfiRule& previous : old)
      same |= previous.name == rule.name && previous.expression == rule.expression;
    if (!same)
      changed.push_back(rule);
  }
  return changed;
}

// A prologue followed instruction by instruction: where the CFA is after
// each, which registers each stores (as offsets from the CFA) and which it
// changes.
struct PrologueStep {
  uint64_t end = 0; // offset of the next instruction
  std::string cfa_register;
  int64_t cfa_offset = 0;
  std::map<std::string, int64_t> stores;
  std::vector<std::string> changes;
};

struct Prologue {
  std::vector<std::pair<uint64_t, FrameState>> rows; // (offset from the start, state)
};

// Where a prologue stands while it is followed: the CFA and how far the
// stack pointer has moved below it. While the CFA is reckoned from the
// stack pointer, its offset moves with every push and allocation.
struct PrologueWalk {
  PrologueWalk(const FrameState& entry, std::string stack_pointer, int64_t entry_depth)
      : cfa_register(entry.cfa_register), cfa_offset(entry.cfa_offset), depth(entry_depth),
        stack_pointer_(std::move(stack_pointer)) {}

  // Ends the step of one instruction, the next one starting at `end`.
  void finish(PrologueStep step, uint64_t end) {
    if (cfa_register == stack_pointer_)
      cfa_offset = depth;
    step.cfa_register = cfa_register;
    step.cfa_offset = cfa_offset;
    step.end = end;
    steps.push_back(std::move(step));
  }

  std::vector<PrologueStep> steps;
  std::string cfa_register;
  int64_t cfa_offset;
  int64_t depth; // CFA - stack pointer

private:
  std::string stack_pointer_;
};

// The rows of the steps. A register still holds its value until the body
// changes it, so its save is described once the prologue is done (as
// LLVM's CFI does), unless a later prologue instruction changes it (the
// frame pointer): then from the instruction that stored it.
Prologue rowsOf(const FrameState& entry, const std::vector<PrologueStep>& steps) {
  Prologue prologue;
  std::map<std::string, size_t> effective; // register -> step its save takes effect at
  std::map<std::string, int64_t> slots;
  for (size_t i = 0; i < steps.size(); ++i)
    for (const auto& [reg, slot] : steps[i].stores) {
      if (slots.count(reg))
        continue; // the first store is the save
      slots[reg] = slot;
      size_t at = steps.empty() ? 0 : steps.size() - 1;
      for (size_t j = i + 1; j < steps.size(); ++j)
        if (std::find(steps[j].changes.begin(), steps[j].changes.end(), reg) !=
            steps[j].changes.end()) {
          at = i;
          break;
        }
      effective[reg] = at;
    }
  FrameState state = entry;
  for (size_t i = 0; i < steps.size(); ++i) {
    state.cfa_register = steps[i].cfa_register;
    state.cfa_offset = steps[i].cfa_offset;
    for (const auto& [reg, at] : effective)
      if (at == i) {
        state.saved[reg] = slots[reg];
        if (reg == ".ra")
          state.ra_register.clear();
      }
    prologue.rows.push_back({steps[i].end, state});
  }
  return prologue;
}

// The frame from the prologue's rows when they end in `body`; else `body`
// from the start.
CfiFrame frameOf(const CompactUnwindEntry& entry, const FrameState& entry_state,
                 const Prologue& prologue, const FrameState& body) {
  CfiFrame frame;
  frame.range = {entry.start, entry.end};
  bool followed = !prologue.rows.empty() && prologue.rows.back().second == body &&
                  prologue.rows.back().first < entry.end - entry.start;
  if (!followed) {
    frame.initial = rulesOf(body);
    return frame;
  }
  frame.initial = rulesOf(entry_state);
  const FrameState* previous = &entry_state;
  for (const auto& [offset, state] : prologue.rows) {
    std::vector<CfiRule> changed = changedRules(*previous, state);
    if (!changed.empty())
      frame.changes.push_back({entry.start + offset, std::move(changed)});
    previous = &state;
  }
  return frame;
}

// --- x86_64 ---

const char* const kX64Registers[] = {"", "$rbx", "$r12", "$r13", "$r14", "$r15", "$rbp"};

FrameState x64Entry() {
  FrameState state;
  state.cfa_register = "$rsp";
  state.cfa_offset = 8;
  state.saved[".ra"] = -8;
  return state;
}

// The registers of a frameless encoding's permutation, in push order
// (libunwind's compact_unwind_encoding.h describes the numbering: each
// register's rank among those not yet taken, the ranks packed as mixed
// radix digits).
std::optional<std::vector<int>> x64PermutedRegisters(uint32_t count, uint32_t permutation) {
  if (count > 6)
    return std::nullopt;
  std::vector<uint32_t> ranks(count);
  const uint32_t radices[6][6] = {{}, {1}, {5, 1}, {20, 4, 1}, {60, 12, 3, 1}, {120, 24, 6, 2, 1}};
  uint32_t rest = permutation;
  if (count == 6) {
    // Six registers: the last rank is implied.
    const uint32_t six[5] = {120, 24, 6, 2, 1};
    for (uint32_t i = 0; i < 5; ++i) {
      ranks[i] = rest / six[i];
      rest %= six[i];
    }
    ranks[5] = 0;
  } else {
    for (uint32_t i = 0; i < count; ++i) {
      ranks[i] = rest / radices[count][i];
      rest %= radices[count][i];
    }
  }
  std::vector<int> registers;
  bool used[7] = {};
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t rank = 0;
    int chosen = 0;
    for (int r = 1; r <= 6 && !chosen; ++r) {
      if (used[r])
        continue;
      if (rank == ranks[i])
        chosen = r;
      ++rank;
    }
    if (!chosen)
      return std::nullopt;
    used[chosen] = true;
    registers.push_back(chosen);
  }
  return registers;
}

// x86_64 prologue instructions: pushes, `mov %rsp,%rbp`, `sub $n,%rsp`.
Prologue followX64(llvm::StringRef code, const FrameState& entry) {
  static const char* const kPushNames[16] = {"$rax", "$rcx", "$rdx", "$rbx", "$rsp", "$rbp",
                                             "$rsi", "$rdi", "$r8",  "$r9",  "$r10", "$r11",
                                             "$r12", "$r13", "$r14", "$r15"};
  PrologueWalk walk(entry, "$rsp", 8); // CFA - %rsp is 8 at the entry
  auto byte = [&](size_t i) { return static_cast<uint8_t>(code[i]); };
  size_t at = 0;
  while (at < code.size() && at < 256) {
    uint8_t b0 = byte(at);
    PrologueStep step;
    size_t length = 0;
    int pushed = -1;
    int64_t sub = 0;
    if (b0 >= 0x50 && b0 <= 0x57) {
      pushed = b0 - 0x50, length = 1;
    } else if (b0 == 0x41 && at + 1 < code.size() && byte(at + 1) >= 0x50 && byte(at + 1) <= 0x57) {
      pushed = 8 + byte(at + 1) - 0x50, length = 2;
    } else if (b0 == 0x48 && at + 2 < code.size() && byte(at + 1) == 0x89 && byte(at + 2) == 0xe5) {
      walk.cfa_register = "$rbp";
      walk.cfa_offset = walk.depth; // %rbp is %rsp now
      step.changes.push_back("$rbp");
      length = 3;
    } else if (b0 == 0x48 && at + 3 < code.size() && byte(at + 1) == 0x83 && byte(at + 2) == 0xec) {
      sub = byte(at + 3), length = 4;
    } else if (b0 == 0x48 && at + 6 < code.size() && byte(at + 1) == 0x81 && byte(at + 2) == 0xec) {
      sub = llvm::support::endian::read32le(code.data() + at + 3), length = 7;
    } else {
      break;
    }
    if (pushed >= 0) {
      walk.depth += 8;
      // Only callee-saved registers are worth restoring (rax pushed to
      // align the stack is not).
      std::string name = kPushNames[pushed];
      if (name == "$rbx" || name == "$rbp" || name == "$r12" || name == "$r13" || name == "$r14" ||
          name == "$r15")
        step.stores.emplace(name, -walk.depth);
    }
    walk.depth += sub;
    at += length;
    walk.finish(std::move(step), at);
  }
  return rowsOf(entry, walk.steps);
}

std::optional<CfiFrame> x64Frame(const CompactUnwindEntry& entry, llvm::StringRef code,
                                 std::string& problem) {
  uint32_t encoding = entry.encoding;
  uint32_t mode = encoding & kModeMask;
  FrameState entry_state = x64Entry();
  FrameState body = entry_state;
  if (mode == kX64RbpFrame) {
    body.cfa_register = "$rbp";
    body.cfa_offset = 16;
    body.saved["$rbp"] = -16;
    int64_t offset = (encoding >> 16) & 0xff;
    for (int i = 0; i < 5; ++i) {
      uint32_t reg = (encoding >> (3 * i)) & 7;
      if (reg == 0)
        continue;
      if (reg > 6) {
        problem = "an RBP frame with an unknown register number";
        return std::nullopt;
      }
      body.saved[kX64Registers[reg]] = -(16 + 8 * offset - 8 * i);
    }
  } else if (mode == kX64StackImmediate || mode == kX64StackIndirect) {
    int64_t size = (encoding >> 16) & 0xff;
    if (mode == kX64StackImmediate) {
      size *= 8;
    } else {
      // The size is the immediate of the function's `sub $n,%rsp`, at the
      // offset the encoding gives, plus what was pushed before it.
      uint64_t at = static_cast<uint64_t>(size);
      if (at + 4 > code.size()) {
        problem = "a frameless function's stack size lies outside its code";
        return std::nullopt;
      }
      size = llvm::support::endian::read32le(code.data() + at) + 8 * ((encoding >> 13) & 7);
    }
    uint32_t count = (encoding >> 10) & 7;
    auto registers = x64PermutedRegisters(count, encoding & 0x3ff);
    if (!registers) {
      problem = "a frameless function's register permutation is impossible";
      return std::nullopt;
    }
    body.cfa_offset = size;
    for (uint32_t i = 0; i < count; ++i)
      body.saved[kX64Registers[(*registers)[i]]] = -(8 + 8 * int64_t(count) - 8 * int64_t(i));
  } else if (mode == kX64Dwarf || encoding == 0) {
    return std::nullopt;
  } else {
    problem = "an unknown x86_64 mode";
    return std::nullopt;
  }
  return frameOf(entry, entry_state, followX64(code, entry_state), body);
}

// --- arm64 ---

FrameState arm64Entry() {
  FrameState state;
  state.cfa_register = "sp";
  state.cfa_offset = 0;
  state.ra_register = "x30";
  return state;
}

std::string arm64Register(uint32_t number) {
  if (number == 30)
    return ".ra";
  return "x" + std::to_string(number);
}

// arm64 prologue instructions: `stp` of X registers (pre-indexed or at an
// offset from sp), `stp` of D registers (which only move sp, pre-indexed),
// `sub sp, sp, #n`, `add x29, sp, #n` (`mov x29, sp`), `pacibsp`.
Prologue followArm64(llvm::StringRef code, const FrameState& entry) {
  PrologueWalk walk(entry, "sp", 0); // CFA - sp is 0 at the entry
  for (size_t at = 0; at + 4 <= code.size() && at < 256; at += 4) {
    uint32_t w = llvm::support::endian::read32le(code.data() + at);
    uint32_t rt = w & 31, rn = (w >> 5) & 31, rt2 = (w >> 10) & 31;
    int64_t imm7 = static_cast<int64_t>((w >> 15) & 0x7f);
    if (imm7 & 0x40)
      imm7 -= 0x80;
    PrologueStep step;
    auto store = [&](uint32_t reg, int64_t slot) {
      if (reg >= 19 && reg <= 30)
        step.stores.emplace(arm64Register(reg), slot);
    };
    if (w == 0xd503237f) {                                   // pacibsp
    } else if ((w & 0xffc00000) == 0xa9800000 && rn == 31) { // stp Xt, Xt2, [sp, #imm]!
      walk.depth -= imm7 * 8;
      store(rt, -walk.depth);
      store(rt2, -walk.depth + 8);
    } else if ((w & 0xffc00000) == 0xa9000000 && rn == 31) { // stp Xt, Xt2, [sp, #imm]
      store(rt, imm7 * 8 - walk.depth);
      store(rt2, imm7 * 8 - walk.depth + 8);
    } else if ((w & 0xffc00000) == 0x6d800000 && rn == 31) { // stp Dt, Dt2, [sp, #imm]!
      walk.depth -= imm7 * 8;
    } else if ((w & 0xffc00000) == 0x6d000000 && rn == 31) {             // stp Dt, Dt2, [sp, #imm]
    } else if ((w & 0xff800000) == 0xd1000000 && rn == 31 && rt == 31) { // sub sp, sp, #imm
      walk.depth += static_cast<int64_t>((w >> 10) & 0xfff) << ((w >> 22) & 1 ? 12 : 0);
    } else if ((w & 0xff800000) == 0x91000000 && rn == 31 && rt == 29) { // add x29, sp, #imm
      int64_t imm = static_cast<int64_t>((w >> 10) & 0xfff) << ((w >> 22) & 1 ? 12 : 0);
      walk.cfa_register = "x29";
      walk.cfa_offset = walk.depth - imm;
      step.changes.push_back("x29");
    } else {
      break;
    }
    walk.finish(std::move(step), at + 4);
  }
  return rowsOf(entry, walk.steps);
}

std::optional<CfiFrame> arm64Frame(const CompactUnwindEntry& entry, llvm::StringRef code,
                                   std::string& problem) {
  uint32_t encoding = entry.encoding;
  uint32_t mode = encoding & kModeMask;
  FrameState entry_state = arm64Entry();
  FrameState body = entry_state;
  if (mode == kArm64Frame) {
    body.cfa_register = "x29";
    body.cfa_offset = 16;
    body.ra_register.clear();
    body.saved["x29"] = -16;
    body.saved[".ra"] = -8;
    // The pairs below the frame record, in the order of their bits
    // (x19/x20 first, nearest the frame record); D pairs take their slots
    // but hold no register a walk restores.
    int64_t slot = -24;
    for (uint32_t bit = 0; bit < 12; ++bit) {
      if (!(encoding & (1u << bit)))
        continue;
      if (bit < 5) {
        body.saved["x" + std::to_string(19 + 2 * bit)] = slot;
        body.saved["x" + std::to_string(20 + 2 * bit)] = slot - 8;
      }
      slot -= 16;
    }
  } else if (mode == kArm64Frameless) {
    body.cfa_offset = 16 * static_cast<int64_t>((encoding >> 12) & 0xfff);
    // (the return address stays in x30; saved pairs of a frameless
    // function are not described well enough to restore them)
  } else if (mode == kArm64Dwarf || encoding == 0) {
    return std::nullopt;
  } else {
    problem = "an unknown arm64 mode";
    return std::nullopt;
  }
  Prologue prologue = followArm64(code, entry_state);
  // A frameless body names no saved registers: compare what it gives.
  if (mode == kArm64Frameless && !prologue.rows.empty()) {
    FrameState last = prologue.rows.back().second;
    if (last.cfa_register == body.cfa_register && last.cfa_offset == body.cfa_offset &&
        !last.saved.count(".ra"))
      body = last;
  }
  return frameOf(entry, entry_state, prologue, body);
}

} // namespace

std::optional<CfiFrame> compactUnwindFrame(const CompactUnwindEntry& entry, uint32_t cpu_type,
                                           llvm::StringRef code, std::string& problem) {
  problem.clear();
  if (entry.end <= entry.start)
    return std::nullopt;
  if (cpu_type == llvm::MachO::CPU_TYPE_X86_64)
    return x64Frame(entry, code, problem);
  if (cpu_type == llvm::MachO::CPU_TYPE_ARM64)
    return arm64Frame(entry, code, problem);
  return std::nullopt;
}

} // namespace dumpsyms
