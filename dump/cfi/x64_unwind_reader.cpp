#include "dump/cfi/x64_unwind_reader.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace dumpsyms {

namespace {

// UNWIND_CODE operations (Microsoft's "x64 exception handling").
enum Op : uint8_t {
  PushNonVol = 0,
  AllocLarge = 1,
  AllocSmall = 2,
  SetFpReg = 3,
  SaveNonVol = 4,
  SaveNonVolFar = 5,
  SaveXmm128Or6 = 6, // version 1: SAVE_XMM (obsolete, one slot); version 2: EPILOG
  SaveXmmFar7 = 7,   // version 1: SAVE_XMM_FAR (obsolete, two slots)
  SaveXmm128 = 8,
  SaveXmm128Far = 9,
  PushMachFrame = 10,
};

constexpr uint8_t kChainInfo = 0x4;
constexpr const char* kRegisterNames[16] = {"$rax", "$rcx", "$rdx", "$rbx", "$rsp", "$rbp",
                                            "$rsi", "$rdi", "$r8",  "$r9",  "$r10", "$r11",
                                            "$r12", "$r13", "$r14", "$r15"};

uint16_t read16(llvm::ArrayRef<uint8_t> b, size_t at) {
  return uint16_t(b[at] | (b[at + 1] << 8));
}
uint32_t read32(llvm::ArrayRef<uint8_t> b, size_t at) {
  return uint32_t(read16(b, at)) | (uint32_t(read16(b, at + 2)) << 16);
}

// One decoded unwind operation, in prologue order.
struct Operation {
  uint8_t code_offset = 0; // end of the prologue instruction, from the function start
  Op op = PushNonVol;
  uint8_t info = 0;
  uint32_t value = 0; // allocation size, or save offset in bytes
};

struct UnwindInfo {
  uint8_t frame_register = 0;
  uint8_t frame_offset = 0;          // scaled by 16
  std::vector<Operation> operations; // prologue order (the table lists them backwards)
  std::optional<uint32_t> chained_unwind_rva;
};

std::optional<UnwindInfo> decode(uint32_t rva, const ImageBytes& bytes, std::string& problem) {
  llvm::ArrayRef<uint8_t> header = bytes(rva, 4);
  if (header.size() != 4) {
    problem = fmt::format("UNWIND_INFO at {:#x} is outside the file", rva);
    return std::nullopt;
  }
  uint8_t version = header[0] & 7, flags = header[0] >> 3;
  if (version != 1 && version != 2) {
    problem = fmt::format("UNWIND_INFO at {:#x} has version {}", rva, version);
    return std::nullopt;
  }
  uint8_t count = header[2];
  size_t slots_bytes = 2 * size_t((count + 1) & ~1);
  bool chained = flags & kChainInfo;
  llvm::ArrayRef<uint8_t> all = bytes(rva, uint32_t(4 + slots_bytes + (chained ? 12 : 0)));
  if (all.empty()) {
    problem = fmt::format("UNWIND_INFO at {:#x} runs past its section", rva);
    return std::nullopt;
  }
  UnwindInfo info;
  info.frame_register = header[3] & 0xf;
  info.frame_offset = header[3] >> 4;
  auto slot = [&](size_t i) { return read16(all, 4 + 2 * i); };
  for (size_t i = 0; i < count;) {
    Operation operation;
    operation.code_offset = all[4 + 2 * i];
    operation.op = Op(all[5 + 2 * i] & 0xf);
    operation.info = all[5 + 2 * i] >> 4;
    size_t used = 1;
    switch (operation.op) {
    case PushNonVol:
    case SetFpReg:
    case PushMachFrame:
      break;
    case AllocSmall:
      operation.value = operation.info * 8u + 8;
      break;
    case AllocLarge:
      used = operation.info == 0 ? 2 : 3;
      if (i + used <= count)
        operation.value = operation.info == 0
                              ? slot(i + 1) * 8u
                              : uint32_t(slot(i + 1)) | (uint32_t(slot(i + 2)) << 16);
      break;
    case SaveNonVol:
    case SaveXmm128:
      used = 2;
      if (i + used <= count)
        operation.value = slot(i + 1) * (operation.op == SaveNonVol ? 8u : 16u);
      break;
    case SaveNonVolFar:
    case SaveXmm128Far:
      used = 3;
      if (i + used <= count)
        operation.value = uint32_t(slot(i + 1)) | (uint32_t(slot(i + 2)) << 16);
      break;
    case SaveXmm128Or6:
      used = version == 2 ? 1 : 2;
      break;
    case SaveXmmFar7:
      used = 3;
      break;
    default:
      problem = fmt::format("UNWIND_INFO at {:#x} has unknown unwind operation {}", rva,
                            unsigned(operation.op));
      return std::nullopt;
    }
    if (i + used > count) {
      problem = fmt::format("UNWIND_INFO at {:#x}: unwind operation {} lacks its operand slots",
                            rva, unsigned(operation.op));
      return std::nullopt;
    }
    // Version 2 epilogue descriptions and the obsolete XMM saves change
    // nothing this reader tracks.
    if (!(operation.op == SaveXmm128Or6 || operation.op == SaveXmmFar7))
      info.operations.push_back(operation);
    i += used;
  }
  std::reverse(info.operations.begin(), info.operations.end());
  if (chained)
    info.chained_unwind_rva = read32(all, 4 + slots_bytes + 8);
  return info;
}

// Where the prologue has got to: how far rsp is below the caller's stack
// pointer (the CFA), whether a frame register holds the frame, and where the
// callee-saved registers are.
struct State {
  uint32_t allocated = 8;           // CFA - rsp; the return address is at CFA - 8
  std::optional<uint8_t> frame;     // frame register, once set
  uint32_t allocated_at_frame = 0;  // CFA - rsp when the frame register was set
  uint32_t frame_offset = 0;        // frame register = rsp + frame_offset at that point
  std::map<uint8_t, int64_t> saved; // register -> CFA - address of its slot
  // PUSH_MACHFRAME: the CPU pushed a trap frame; the caller's rsp and rip
  // are in it, at CFA - these offsets, where "CFA" is rsp before the push.
  std::optional<int64_t> machine_frame_rip, machine_frame_rsp;
};

void apply(State& state, const Operation& operation, uint8_t frame_register,
           uint32_t frame_offset) {
  // Saves with MOV are relative to the fixed allocation's base: rsp at the
  // end of the prologue, or the frame register minus its offset.
  auto base = [&] { return state.frame ? state.allocated_at_frame : state.allocated; };
  switch (operation.op) {
  case PushNonVol:
    state.allocated += 8;
    state.saved[operation.info] = state.allocated;
    break;
  case AllocSmall:
  case AllocLarge:
    state.allocated += operation.value;
    break;
  case SetFpReg:
    state.frame = frame_register;
    state.frame_offset = frame_offset;
    state.allocated_at_frame = state.allocated;
    break;
  case SaveNonVol:
  case SaveNonVolFar:
    state.saved[operation.info] = int64_t(base()) - int64_t(operation.value);
    break;
  case PushMachFrame: {
    // The CPU pushed [error code,] rip, cs, rflags, rsp, ss where rsp now
    // points; nothing was called, so no return address is below them.
    int64_t error_code = operation.info ? 8 : 0;
    state.machine_frame_rip = int64_t(state.allocated) - error_code;
    state.machine_frame_rsp = int64_t(state.allocated) - error_code - 24;
    break;
  }
  default: // XMM saves: Breakpad's x64 walker recovers no XMM registers
    break;
  }
}

// Rules for `state`. Stack slots are given relative to .cfa (the caller's
// rsp), which is rsp or the frame register plus a constant.
std::vector<CfiRule> rules(const State& state) {
  std::vector<CfiRule> out;
  auto slot = [](int64_t below_cfa) { return fmt::format(".cfa {} - ^", below_cfa); };
  if (state.machine_frame_rsp) {
    // A trap frame: the caller's rsp and rip are loaded from it, so the CFA
    // is no anchor for the other slots; give them from rsp (or the frame
    // register) directly.
    auto at = [&](int64_t below_cfa) {
      if (state.frame)
        return fmt::format("{} {} + ^", kRegisterNames[*state.frame],
                           int64_t(state.allocated_at_frame) - state.frame_offset - below_cfa);
      return fmt::format("$rsp {} + ^", int64_t(state.allocated) - below_cfa);
    };
    out.push_back({".cfa", at(*state.machine_frame_rsp)});
    out.push_back({".ra", at(*state.machine_frame_rip)});
    for (const auto& [reg, below_cfa] : state.saved)
      out.push_back({kRegisterNames[reg], at(below_cfa)});
    return out;
  }
  if (state.frame)
    out.push_back({".cfa", fmt::format("{} {} +", kRegisterNames[*state.frame],
                                       int64_t(state.allocated_at_frame) - state.frame_offset)});
  else
    out.push_back({".cfa", fmt::format("$rsp {} +", state.allocated)});
  out.push_back({".ra", slot(8)});
  for (const auto& [reg, below_cfa] : state.saved)
    out.push_back({kRegisterNames[reg], slot(below_cfa)});
  return out;
}

} // namespace

X64UnwindResult readX64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes) {
  X64UnwindResult result;
  for (size_t at = 0; at + 12 <= pdata.size(); at += 12) {
    uint32_t begin = read32(pdata, at), end = read32(pdata, at + 4), unwind = read32(pdata, at + 8);
    if (begin == 0 && end == 0)
      continue; // padding
    if (end <= begin) {
      result.problems.push_back(
          fmt::format("RUNTIME_FUNCTION [{:#x}, {:#x}) is empty", begin, end));
      continue;
    }
    // An odd UnwindInfoAddress names another RUNTIME_FUNCTION (a chain
    // written the compact way): follow it.
    std::string problem;
    for (int hops = 0; (unwind & 1) && hops < limits::kMaxUnwindChain; ++hops) {
      llvm::ArrayRef<uint8_t> entry = bytes(unwind & ~1u, 12);
      if (entry.size() != 12) {
        problem = fmt::format("chained RUNTIME_FUNCTION at {:#x} is outside the file", unwind);
        break;
      }
      unwind = read32(entry, 8);
    }
    if (problem.empty() && (unwind & 1))
      problem = fmt::format("RUNTIME_FUNCTION chain: {}",
                            limits::overLimit("its length", limits::kMaxUnwindChain, "links"));
    std::optional<UnwindInfo> own;
    if (problem.empty())
      own = decode(unwind, bytes, problem);
    // The chain: every parent's prologue has run completely.
    State base;
    if (own) {
      std::optional<uint32_t> parent = own->chained_unwind_rva;
      std::vector<UnwindInfo> parents;
      for (int hops = 0; parent && hops < limits::kMaxUnwindChain && problem.empty(); ++hops) {
        std::optional<UnwindInfo> info = decode(*parent, bytes, problem);
        if (!info)
          break;
        parent = info->chained_unwind_rva;
        parents.push_back(std::move(*info));
      }
      if (parent && problem.empty())
        problem = fmt::format("UNWIND_INFO chain at {:#x}: {}", unwind,
                              limits::overLimit("its length", limits::kMaxUnwindChain, "links"));
      // The outermost parent's prologue ran first.
      for (auto p = parents.rbegin(); p != parents.rend(); ++p)
        for (const Operation& operation : p->operations)
          apply(base, operation, p->frame_register, p->frame_offset * 16u);
    }
    if (!problem.empty()) {
      result.problems.push_back(
          fmt::format("RUNTIME_FUNCTION [{:#x}, {:#x}): {}", begin, end, problem));
      continue;
    }
    CfiFrame frame;
    frame.range = {begin, end};
    frame.initial = rules(base);
    State state = base;
    std::vector<CfiRule> current = frame.initial;
    const std::vector<Operation>& operations = own->operations;
    for (size_t i = 0; i < operations.size();) {
      uint8_t offset = operations[i].code_offset;
      // Several codes can describe one instruction (a large save): apply
      // all with the same offset before writing a change.
      for (; i < operations.size() && operations[i].code_offset == offset; ++i)
        apply(state, operations[i], own->frame_register, own->frame_offset * 16u);
      std::vector<CfiRule> next = rules(state);
      if (offset == 0) {
        frame.initial = next;
      } else if (next != current && begin + offset < end) {
        CfiChange change{begin + uint64_t(offset), {}};
        for (const CfiRule& rule : next)
          if (std::find(current.begin(), current.end(), rule) == current.end())
            change.rules.push_back(rule);
        if (!frame.changes.empty() && frame.changes.back().address == change.address)
          frame.changes.back().rules = next;
        else
          frame.changes.push_back(std::move(change));
      }
      current = std::move(next);
    }
    result.frames.push_back(std::move(frame));
  }
  return result;
}

} // namespace dumpsyms
