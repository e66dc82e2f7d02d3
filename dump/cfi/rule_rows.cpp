#include "dump/cfi/rule_rows.h"

#include "common/limits/input_limits.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/BinaryFormat/Dwarf.h>

namespace dumpsyms {

using namespace llvm;
using dwarf::CFIProgram;

namespace {

// Not in LLVM's opcode list: the GNU extension for negative offsets.
constexpr uint8_t kGnuNegativeOffsetExtended = 0x2f;

class Machine {
public:
  Machine(uint64_t start, uint64_t end) : location_(start), end_(end) {}

  // Runs `program`; returns an error message or "".
  std::string run(const CFIProgram& program, bool is_cie) {
    for (const CFIProgram::Instruction& instruction : program) {
      std::string error = step(program, instruction, is_cie);
      if (!error.empty())
        return error;
    }
    return "";
  }

  void captureInitialState() { initial_ = state_; }

  RuleTable finish(std::string error) {
    emitRow();
    RuleTable table;
    table.rows = std::move(rows_);
    table.error = std::move(error);
    return table;
  }

private:
  void emitRow() {
    if (location_ >= end_)
      return;
    if (!rows_.empty() && rows_.back().address == location_)
      rows_.back().state = state_;
    else if (rows_.empty() || !(rows_.back().state == state_))
      rows_.push_back({location_, state_});
  }

  void advanceTo(uint64_t location) {
    emitRow();
    location_ = location;
  }

  std::string step(const CFIProgram& program, const CFIProgram::Instruction& in, bool is_cie) {
    auto unsignedOperand = [&](uint32_t index) -> Expected<uint64_t> {
      return in.getOperandAsUnsigned(program, index);
    };
    auto signedOperand = [&](uint32_t index) -> Expected<int64_t> {
      return in.getOperandAsSigned(program, index);
    };
    // A register and a (factored) offset: the operands of the rules that
    // name a place relative to a register or the CFA.
    auto registerAndOffset = [&]() -> Expected<std::pair<uint64_t, int64_t>> {
      auto reg = unsignedOperand(0);
      if (!reg)
        return reg.takeError();
      auto offset = signedOperand(1);
      if (!offset)
        return offset.takeError();
      return std::make_pair(*reg, *offset);
    };
    std::string failure;
    auto fail = [&](Error error) {
      failure = toString(std::move(error));
      return failure;
    };
    auto setColumn = [&](uint64_t reg, ColumnRule::Kind kind, int64_t offset = 0,
                         uint64_t source = 0, std::string expression = {}) {
      state_.columns[reg] = ColumnRule{kind, offset, source, std::move(expression)};
    };
    auto expressionBytes = [&]() -> std::string {
      return in.Expression ? in.Expression->getData().str() : std::string();
    };

    switch (in.Opcode) {
    case dwarf::DW_CFA_nop:
    case dwarf::DW_CFA_GNU_args_size:
      return "";
    // Also DW_CFA_AARCH64_negate_ra_state: the return address is signed
    // from here on. The walker strips pointer-authentication bits from the
    // value it recovers, so the rules need no change.
    case dwarf::DW_CFA_GNU_window_save:
      return "";
    case dwarf::DW_CFA_set_loc: {
      auto address = unsignedOperand(0);
      if (!address)
        return fail(address.takeError());
      if (is_cie || *address < location_)
        return "DW_CFA_set_loc moves backwards";
      advanceTo(*address);
      return "";
    }
    case dwarf::DW_CFA_advance_loc:
    case dwarf::DW_CFA_advance_loc1:
    case dwarf::DW_CFA_advance_loc2:
    case dwarf::DW_CFA_advance_loc4:
    case dwarf::DW_CFA_MIPS_advance_loc8: {
      auto delta = unsignedOperand(0);
      if (!delta)
        return fail(delta.takeError());
      if (!is_cie)
        advanceTo(location_ + *delta);
      return "";
    }
    case dwarf::DW_CFA_def_cfa:
    case dwarf::DW_CFA_def_cfa_sf:
    case dwarf::DW_CFA_LLVM_def_aspace_cfa:
    case dwarf::DW_CFA_LLVM_def_aspace_cfa_sf: {
      auto operands = registerAndOffset();
      if (!operands)
        return fail(operands.takeError());
      auto [reg, offset] = *operands;
      state_.cfa = CfaRule{false, reg, offset, {}};
      return "";
    }
    case dwarf::DW_CFA_def_cfa_register: {
      auto reg = unsignedOperand(0);
      if (!reg)
        return fail(reg.takeError());
      // Without an earlier rule the offset is 0 (gcc's RISC-V CIEs do this).
      if (!state_.cfa)
        state_.cfa = CfaRule{false, *reg, 0, {}};
      if (state_.cfa->is_expression)
        return "DW_CFA_def_cfa_register after DW_CFA_def_cfa_expression";
      state_.cfa->reg = *reg;
      return "";
    }
    case dwarf::DW_CFA_def_cfa_offset:
    case dwarf::DW_CFA_def_cfa_offset_sf: {
      auto offset = signedOperand(0);
      if (!offset)
        return fail(offset.takeError());
      if (!state_.cfa || state_.cfa->is_expression)
        return "DW_CFA_def_cfa_offset without a register-based CFA";
      state_.cfa->offset = *offset;
      return "";
    }
    case dwarf::DW_CFA_def_cfa_expression:
      state_.cfa = CfaRule{true, 0, 0, expressionBytes()};
      return "";
    case dwarf::DW_CFA_undefined:
    case dwarf::DW_CFA_same_value:
    case dwarf::DW_CFA_restore:
    case dwarf::DW_CFA_restore_extended: {
      auto reg = unsignedOperand(0);
      if (!reg)
        return fail(reg.takeError());
      if (in.Opcode == dwarf::DW_CFA_undefined) {
        setColumn(*reg, ColumnRule::Kind::Undefined);
      } else if (in.Opcode == dwarf::DW_CFA_same_value) {
        setColumn(*reg, ColumnRule::Kind::SameValue);
      } else {
        auto initial = initial_.columns.find(*reg);
        if (initial != initial_.columns.end())
          state_.columns[*reg] = initial->second;
        else
          state_.columns.erase(*reg);
      }
      return "";
    }
    case dwarf::DW_CFA_offset:
    case dwarf::DW_CFA_offset_extended:
    case dwarf::DW_CFA_offset_extended_sf:
    case kGnuNegativeOffsetExtended:
    case dwarf::DW_CFA_val_offset:
    case dwarf::DW_CFA_val_offset_sf: {
      auto operands = registerAndOffset();
      if (!operands)
        return fail(operands.takeError());
      auto [reg, offset] = *operands;
      int64_t value = in.Opcode == kGnuNegativeOffsetExtended ? -offset : offset;
      bool is_value =
          in.Opcode == dwarf::DW_CFA_val_offset || in.Opcode == dwarf::DW_CFA_val_offset_sf;
      setColumn(reg, is_value ? ColumnRule::Kind::CfaOffset : ColumnRule::Kind::AtCfaOffset, value);
      return "";
    }
    case dwarf::DW_CFA_register: {
      auto reg = unsignedOperand(0);
      auto source = unsignedOperand(1);
      if (!reg)
        return fail(reg.takeError());
      if (!source)
        return fail(source.takeError());
      setColumn(*reg, ColumnRule::Kind::InRegister, 0, *source);
      return "";
    }
    case dwarf::DW_CFA_expression:
    case dwarf::DW_CFA_val_expression: {
      auto reg = unsignedOperand(0);
      if (!reg)
        return fail(reg.takeError());
      setColumn(*reg,
                in.Opcode == dwarf::DW_CFA_expression ? ColumnRule::Kind::AtExpression
                                                      : ColumnRule::Kind::ExpressionValue,
                0, 0, expressionBytes());
      return "";
    }
    case dwarf::DW_CFA_remember_state:
      if (remembered_.size() >= limits::kMaxRememberedStates)
        return limits::overLimit("the nesting of DW_CFA_remember_state",
                                 limits::kMaxRememberedStates, "levels");
      remembered_.push_back(state_);
      return "";
    case dwarf::DW_CFA_restore_state:
      if (remembered_.empty())
        return "DW_CFA_restore_state without DW_CFA_remember_state";
      state_ = std::move(remembered_.back());
      remembered_.pop_back();
      return "";
    default:
      return "unknown call-frame instruction 0x" + utohexstr(in.Opcode);
    }
  }

  uint64_t location_;
  uint64_t end_;
  RuleState state_;
  RuleState initial_;
  std::vector<RuleState> remembered_;
  std::vector<RuleRow> rows_;
};

} // namespace

RuleTable runFrameProgram(const dwarf::FDE& fde) {
  uint64_t start = fde.getInitialLocation();
  uint64_t end = start + fde.getAddressRange();
  if (end < start)
    end = UINT64_MAX;
  Machine machine(start, end);
  const dwarf::CIE* cie = fde.getLinkedCIE();
  if (cie) {
    std::string error = machine.run(cie->cfis(), /*is_cie=*/true);
    if (!error.empty())
      return machine.finish("CIE: " + error);
  }
  machine.captureInitialState();
  return machine.finish(machine.run(fde.cfis(), /*is_cie=*/false));
}

} // namespace dumpsyms
