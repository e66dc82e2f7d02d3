#include "dump/cfi/arm64_unwind_reader.h"

#include "common/limits/input_limits.h"
#include "dump/cfi/arm64_unwind_codes.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace dumpsyms {

namespace {

using namespace arm64_unwind;

// How far the prologue has got: sp below the caller's sp (the CFA), x29
// once it holds the frame, and the slots of the saved x registers.
struct FrameState {
  int64_t allocated = 0;            // CFA - sp
  std::optional<int64_t> frame;     // CFA - x29
  std::map<uint8_t, int64_t> saved; // register -> CFA - its slot
  // The caller's pc is the live lr: a MSFT_OP_CLEAR_UNWOUND_TO_CALL ran
  // after lr was saved (or lr never was). A save of lr after it puts the
  // pc back in lr's slot, which is what lr held at the code.
  bool pc_is_live_lr = false;
};

void apply(FrameState& state, const Step& step) {
  switch (step.kind) {
  case Step::Allocate:
    state.allocated += step.size;
    break;
  case Step::SaveIntegers:
    state.allocated += step.size;
    state.saved[step.first] = state.allocated - step.offset;
    if (step.second != kNoRegister)
      state.saved[step.second] = state.allocated - step.offset - 8;
    if (step.first == kLinkRegister || step.second == kLinkRegister)
      state.pc_is_live_lr = false;
    break;
  case Step::ClearUnwoundToCall:
    state.pc_is_live_lr = true;
    break;
  case Step::SaveFloats:
    state.allocated += step.size;
    break;
  case Step::SetFrame:
    state.frame = state.allocated - step.offset;
    break;
  default:
    break;
  }
}

std::vector<CfiRule> rules(const FrameState& state) {
  std::vector<CfiRule> out;
  auto slot = [](int64_t below_cfa) { return fmt::format(".cfa {} + ^", -below_cfa); };
  out.push_back({".cfa", state.frame ? fmt::format("x29 {} +", *state.frame)
                                     : fmt::format("sp {} +", state.allocated)});
  auto ra = state.saved.find(kLinkRegister);
  bool live_lr = ra == state.saved.end() || state.pc_is_live_lr;
  out.push_back({".ra", live_lr ? "x30" : slot(ra->second)});
  // lr's own rule only when the pc does not come from its slot (the
  // walker otherwise takes the caller's lr from .ra).
  for (const auto& [reg, below_cfa] : state.saved)
    if (reg != kLinkRegister || live_lr)
      out.push_back({fmt::format("x{}", reg), slot(below_cfa)});
  return out;
}

FrameState simulate(const std::vector<Step>& steps) {
  FrameState state;
  for (const Step& step : steps)
    apply(state, step);
  return state;
}

// What a function's unwind data says, in prologue terms: the steps its
// host ran before it (a fragment's), its own prologue, and where its
// epilogues are: each starts at a step of `codes` (in stored order, which
// is the epilogue's own) and runs to the `end` that stands for its return.
struct Description {
  uint32_t length = 0;
  std::vector<Step> host, prologue; // execution order
  std::vector<Step> codes;
  struct Epilogue {
    uint32_t offset = 0;
    size_t start = 0; // index into `codes`
  };
  std::vector<Epilogue> epilogues;
  std::vector<std::string> notes; // codes skipped, the function kept
};

// The rule sets a description gives, and the one that starts at each
// address that starts a new one (pointers into the sets).
struct Rows {
  std::vector<std::vector<CfiRule>> prologue, undo;
  std::map<uint64_t, const std::vector<CfiRule>*> at;
};

// `problem`: epilogues left to the body's rules (over the row limit).
void fillRows(const Description& d, Rows& rows, std::string& problem) {
  FrameState running = simulate(d.host);
  rows.prologue.reserve(d.prologue.size() + 1);
  rows.prologue.push_back(rules(running));
  for (const Step& step : d.prologue) {
    apply(running, step);
    rows.prologue.push_back(rules(running));
  }
  for (size_t i = 0; i < rows.prologue.size(); ++i)
    rows.at[4 * uint64_t(i)] = &rows.prologue[i];
  const std::vector<CfiRule>* body = &rows.prologue.back();
  // At an epilogue instruction the frame is what the codes from there to
  // the `end` would undo: one backwards pass gives every such suffix.
  rows.undo.resize(d.codes.size());
  FrameState state;
  for (size_t i = d.codes.size(); i-- > 0;) {
    if (d.codes[i].kind == Step::End)
      state = FrameState();
    else
      apply(state, d.codes[i]);
    rows.undo[i] = rules(state);
  }
  size_t written = 0;
  for (const Description::Epilogue& epilogue : d.epilogues) {
    if (written >= limits::kMaxArm64EpilogueRows) {
      problem =
          fmt::format("epilogue rows: {}; the rest keep the body's rules",
                      limits::overLimit("their count", limits::kMaxArm64EpilogueRows, "rows"));
      break;
    }
    uint64_t address = epilogue.offset;
    for (size_t k = epilogue.start; k < d.codes.size() && address < d.length; ++k) {
      if (d.codes[k].kind == Step::EndChained)
        continue; // a marker, no instruction
      rows.at[address] = &rows.undo[k];
      ++written;
      address += 4;
      if (d.codes[k].kind == Step::End)
        break;
    }
    if (address < d.length && !rows.at.count(address))
      rows.at[address] = body;
  }
}

CfiFrame frameOf(uint32_t begin, uint32_t length, const Rows& rows) {
  CfiFrame frame;
  frame.range = {begin, uint64_t(begin) + length};
  // The rules a reader holds after the INIT and the changes so far (a
  // change only adds or replaces rules), in the order they first came.
  std::vector<CfiRule> held;
  bool first = true;
  for (const auto& [offset, pointer] : rows.at) {
    if (offset >= length)
      break;
    const std::vector<CfiRule>& next = *pointer;
    if (first) {
      frame.initial = next;
      held = next;
      first = false;
      continue;
    }
    auto named = [](auto& rules, const std::string& name) {
      return std::find_if(rules.begin(), rules.end(),
                          [&](const CfiRule& r) { return r.name == name; });
    };
    std::vector<CfiRule> wanted = next;
    // A register restored by an epilogue holds the caller's value again;
    // lr's own rule (there only while the pc comes from the live lr, after
    // a MSFT_OP_CLEAR_UNWOUND_TO_CALL) follows .ra, which names its slot
    // or lr itself.
    auto ra = named(next, ".ra");
    for (const CfiRule& rule : held)
      if (named(next, rule.name) == next.end())
        wanted.push_back(
            {rule.name, rule.name == "x30" && ra != next.end() ? ra->expression : rule.name});
    CfiChange change{begin + offset, {}};
    for (const CfiRule& rule : wanted) {
      auto have = named(held, rule.name);
      if (have == held.end()) {
        held.push_back(rule);
      } else if (have->expression != rule.expression) {
        have->expression = rule.expression;
      } else {
        continue;
      }
      change.rules.push_back(rule);
    }
    if (!change.rules.empty())
      frame.changes.push_back(std::move(change));
  }
  return frame;
}

// The canonical prologue a packed entry stands for (the table of the
// format's "Packed unwind data"): integer saves, lr, d8-d15, the homed
// arguments, then the rest of the frame, x29 and lr at its bottom when
// chained.
std::optional<Description> describePacked(uint32_t word, std::string& problem) {
  uint32_t flag = word & 3, length = ((word >> 2) & 0x7ff) * 4;
  uint32_t reg_f = (word >> 13) & 7, reg_i = (word >> 16) & 0xf, homes = (word >> 20) & 1;
  uint32_t cr = (word >> 21) & 3, frame_size = (word >> 23) * 16;
  if (reg_i > 10) {
    problem = fmt::format("packed unwind data saves {} integer registers (at most 10)", reg_i);
    return std::nullopt;
  }
  uint32_t int_size = reg_i * 8 + (cr == 1 ? 8 : 0);
  uint32_t float_size = reg_f ? (reg_f + 1) * 8 : 0;
  uint32_t save_size = (int_size + float_size + 8 * homes + 0xf) & ~0xfu;
  if (frame_size < save_size) {
    problem = fmt::format("packed unwind data: frame of {} bytes holds {} bytes of saves",
                          frame_size, save_size);
    return std::nullopt;
  }
  uint32_t locals = frame_size - save_size;
  Description d;
  d.length = length;
  std::vector<Step>& p = d.prologue;
  if (cr == 2)
    p.push_back(marker(Step::Nothing)); // pacibsp
  // Pairs from the bottom of the save area; the first store makes the area.
  bool first_store = true;
  auto store = [&](Step::Kind kind, const std::vector<uint8_t>& regs, uint32_t base) {
    for (size_t k = 0; k < regs.size(); k += 2) {
      uint8_t second = k + 1 < regs.size() ? regs[k + 1] : kNoRegister;
      uint32_t offset = base + uint32_t(8 * k);
      p.push_back(first_store ? save(kind, regs[k], second, 0, save_size)
                              : save(kind, regs[k], second, offset, 0));
      first_store = false;
    }
  };
  std::vector<uint8_t> integers;
  for (uint8_t r = 0; r < reg_i; ++r)
    integers.push_back(uint8_t(19 + r));
  if (cr == 1)
    integers.push_back(kLinkRegister);
  store(Step::SaveIntegers, integers, 0);
  std::vector<uint8_t> floats;
  for (uint8_t r = 0; r < (reg_f ? reg_f + 1 : 0); ++r)
    floats.push_back(uint8_t(8 + r));
  store(Step::SaveFloats, floats, int_size);
  for (int k = 0; k < (homes ? 4 : 0); ++k) {
    // x0-x7 into the home area: the first makes the area when nothing else did.
    p.push_back(first_store ? allocate(save_size) : marker(Step::Nothing));
    first_store = false;
  }
  if (cr == 2 || cr == 3) {
    if (locals <= 512) {
      p.push_back(save(Step::SaveIntegers, kFramePointer, kLinkRegister, 0, locals));
    } else {
      if (locals > 4088)
        p.push_back(allocate(4088));
      p.push_back(allocate(locals > 4088 ? locals - 4088 : locals));
      p.push_back(save(Step::SaveIntegers, kFramePointer, kLinkRegister, 0, 0));
    }
    p.push_back(setFrame(0));
  } else if (locals > 0) {
    if (locals > 4088)
      p.push_back(allocate(4088));
    p.push_back(allocate(locals > 4088 ? locals - 4088 : locals));
  }
  if (flag == 2) { // a fragment: its host ran the prologue, no epilogue here
    d.host = std::move(d.prologue);
    d.prologue.clear();
    return d;
  }
  if (cr == 2)
    return d; // the signed return's epilogue is not described: the body's rules hold there
  // The epilogue mirrors the prologue, without x29's setting and the homing
  // stores (which it does not undo), then returns: at the function's end.
  for (auto step = p.rbegin(); step != p.rend(); ++step)
    if (step->kind != Step::SetFrame && step->kind != Step::Nothing)
      d.codes.push_back(*step);
  d.codes.push_back(marker(Step::End));
  uint64_t size = 4 * uint64_t(d.codes.size());
  if (size <= length)
    d.epilogues.push_back({uint32_t(length - size), 0});
  return d;
}

// The steps of the sequence that starts at `from`, up to its `end`, leaving
// out `end_c` (the host's codes follow it in the same sequence).
std::vector<Step> sequenceFrom(const std::vector<Step>& steps, size_t from) {
  std::vector<Step> out;
  for (size_t i = from; i < steps.size() && steps[i].kind != Step::End; ++i)
    if (steps[i].kind != Step::EndChained)
      out.push_back(steps[i]);
  return out;
}

std::optional<Description> describeUnpacked(uint32_t rva, const ImageBytes& bytes,
                                            std::string& problem) {
  llvm::ArrayRef<uint8_t> first = bytes(rva, 4);
  if (first.size() != 4) {
    problem = fmt::format(".xdata record at {:#x} is outside the file", rva);
    return std::nullopt;
  }
  uint32_t header = read32(first, 0);
  if ((header >> 18) & 3) {
    problem = fmt::format(".xdata record at {:#x} has version {}", rva, (header >> 18) & 3);
    return std::nullopt;
  }
  bool single_epilogue = header & (1u << 21);
  uint32_t epilogues = (header >> 22) & 0x1f, code_words = header >> 27;
  size_t header_words = 1;
  if (epilogues == 0 && code_words == 0) {
    llvm::ArrayRef<uint8_t> extended = bytes(rva, 8);
    if (extended.size() != 8) {
      problem = fmt::format(".xdata record at {:#x} is cut short", rva);
      return std::nullopt;
    }
    uint32_t word = read32(extended, 4);
    epilogues = word & 0xffff;
    code_words = (word >> 16) & 0xff;
    header_words = 2;
  }
  size_t scope_words = single_epilogue ? 0 : epilogues;
  if (scope_words > size_t(limits::kMaxArm64EpilogueScopes)) {
    problem =
        fmt::format(".xdata record at {:#x}: epilogue scopes: {}", rva,
                    limits::overLimit("their count", limits::kMaxArm64EpilogueScopes, "scopes"));
    return std::nullopt;
  }
  size_t total = 4 * (header_words + scope_words + code_words);
  llvm::ArrayRef<uint8_t> all = bytes(rva, uint32_t(total));
  if (all.size() != total) {
    problem = fmt::format(".xdata record at {:#x} runs past its section", rva);
    return std::nullopt;
  }
  std::vector<std::string> notes;
  std::optional<std::vector<Step>> steps =
      decodeCodes(all.slice(4 * (header_words + scope_words)), problem, notes);
  if (!steps) {
    problem = fmt::format(".xdata record at {:#x}: {}", rva, problem);
    return std::nullopt;
  }
  Description d;
  d.length = (header & 0x3ffff) * 4;
  for (const std::string& note : notes)
    d.notes.push_back(fmt::format(".xdata record at {:#x}: {}", rva, note));
  // The prologue's codes come first, backwards; after an `end_c`, those of
  // the host whose prologue ran before this fragment's.
  size_t i = 0;
  for (;
       i < steps->size() && steps->at(i).kind != Step::End && steps->at(i).kind != Step::EndChained;
       ++i)
    d.prologue.push_back(steps->at(i));
  std::reverse(d.prologue.begin(), d.prologue.end());
  if (i < steps->size() && steps->at(i).kind == Step::EndChained) {
    d.host = sequenceFrom(*steps, i + 1);
    std::reverse(d.host.begin(), d.host.end());
  }
  // An epilogue names its first code by byte index; one that names none
  // (or the middle of a code) is left to the body's rules.
  std::vector<int> step_of_byte(4 * size_t(code_words) + 1, -1);
  for (size_t k = 0; k < steps->size(); ++k)
    step_of_byte[steps->at(k).byte_index] = int(k);
  auto stepAt = [&](uint32_t byte_index) -> std::optional<size_t> {
    if (byte_index >= step_of_byte.size() || step_of_byte[byte_index] < 0)
      return std::nullopt;
    return size_t(step_of_byte[byte_index]);
  };
  if (single_epilogue) {
    // Packed into the header: its codes start at the index the count holds,
    // and it ends the function.
    if (std::optional<size_t> start = stepAt(epilogues)) {
      uint64_t size = 4 * uint64_t(sequenceFrom(*steps, *start).size() + 1);
      if (size <= d.length)
        d.epilogues.push_back({uint32_t(d.length - size), *start});
    }
  } else {
    for (size_t k = 0; k < scope_words; ++k) {
      uint32_t scope = read32(all, 4 * (header_words + k));
      if (std::optional<size_t> start = stepAt(scope >> 22))
        d.epilogues.push_back({(scope & 0x3ffff) * 4, *start});
    }
  }
  d.codes = std::move(*steps);
  return d;
}

} // namespace

PeUnwindResult readArm64Unwind(llvm::ArrayRef<uint8_t> pdata, const ImageBytes& bytes) {
  PeUnwindResult result;
  for (size_t at = 0; at + 8 <= pdata.size(); at += 8) {
    uint32_t begin = read32(pdata, at), word = read32(pdata, at + 4);
    if (begin == 0 && word == 0)
      continue; // padding
    std::string problem;
    std::optional<Description> d;
    if ((word & 3) == 0)
      d = describeUnpacked(word, bytes, problem);
    else if ((word & 3) == 3)
      problem = "packed unwind data has the reserved flag 3";
    else
      d = describePacked(word, problem);
    if (d && d->length == 0)
      problem = "the function is empty";
    if (!problem.empty() || !d) {
      result.problems.push_back(fmt::format(".pdata entry at {:#x}: {}", begin, problem));
      continue;
    }
    for (const std::string& note : d->notes)
      result.problems.push_back(fmt::format(".pdata entry at {:#x}: {}", begin, note));
    Rows rows;
    fillRows(*d, rows, problem);
    if (!problem.empty())
      result.problems.push_back(fmt::format(".pdata entry at {:#x}: {}", begin, problem));
    result.frames.push_back(frameOf(begin, d->length, rows));
  }
  return result;
}

} // namespace dumpsyms
