#include "dump/cfi/postfix_translation.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/DebugInfo/DWARF/DWARFExpression.h>
#include <llvm/Support/DataExtractor.h>
#include <vector>

namespace dumpsyms {

using namespace llvm;

std::string postfixLiteral(uint64_t value, unsigned word_size) {
  if (word_size == 4)
    return std::to_string(static_cast<int32_t>(static_cast<uint32_t>(value)));
  return std::to_string(static_cast<int64_t>(value));
}

namespace {

// One value on the symbolic evaluation stack: a postfix expression plus a
// constant offset kept apart so that additions fold ("$rsp 8 +" rather than
// "$rsp 0 + 8 +"), and an upper bound where one is known, which lets
// comparisons be written with division.
struct Value {
  std::string base;         // postfix text; empty for a pure constant
  bool is_register = false; // `base` is a lone register name
  uint64_t offset = 0;      // added to `base` (or the whole value)
  uint64_t max = UINT64_MAX;

  bool isConstant() const { return base.empty(); }
};

class Translator {
public:
  Translator(const RegisterNames& registers) : registers_(registers) {
    uint64_t bits = registers.wordSize() * 8;
    mask_ = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
    sign_bit_ = uint64_t(1) << (bits - 1);
  }

  std::string render(const Value& v) const {
    uint64_t offset = v.offset & mask_;
    if (v.isConstant())
      return literal(offset);
    if (v.is_register || offset != 0)
      return v.base + " " + literal(offset) + " +";
    return v.base;
  }

  PostfixResult run(StringRef bytes, bool little_endian, bool push_cfa, bool dereference) {
    if (push_cfa)
      stack_.push_back({".cfa", false, 0, UINT64_MAX});
    DataExtractor data(bytes, little_endian, registers_.wordSize());
    DWARFExpression expression(data, registers_.wordSize());
    for (const DWARFExpression::Operation& op : expression) {
      if (op.isError())
        return fail("undecodable operation");
      if (!step(op))
        return {"", reason_};
      // Checked at every step: an operation at most doubles the text.
      if (stack_.size() > limits::kMaxExpressionStack)
        return fail(
            limits::overLimit("the expression's stack", limits::kMaxExpressionStack, "values"));
      if (!stack_.empty() && stack_.back().base.size() > limits::kMaxPostfixLength)
        return fail(limits::overLimit("its postfix text", limits::kMaxPostfixLength, "characters"));
    }
    if (stack_.empty())
      return fail("the expression leaves nothing on the stack");
    std::string text = render(stack_.back());
    if (dereference)
      text += " ^";
    return {text, ""};
  }

private:
  std::string literal(uint64_t value) const { return postfixLiteral(value, registers_.wordSize()); }

  PostfixResult fail(std::string reason) { return {"", std::move(reason)}; }

  bool refuse(std::string reason) {
    reason_ = std::move(reason);
    return false;
  }

  Value constant(uint64_t value) const { return {"", false, value & mask_, value & mask_}; }

  static uint64_t saturatingAdd(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
  }

  Value binary(const Value& a, const Value& b, const char* op, uint64_t max) const {
    return {render(a) + " " + render(b) + " " + op, false, 0, max};
  }

  static std::optional<unsigned> log2Exact(uint64_t value) {
    if (value == 0 || (value & (value - 1)) != 0)
      return std::nullopt;
    unsigned n = 0;
    while ((uint64_t(1) << n) != value)
      ++n;
    return n;
  }

  bool pop(Value& out) {
    if (stack_.empty())
      return refuse("stack underflow");
    out = stack_.back();
    stack_.pop_back();
    return true;
  }

  bool pushRegister(uint64_t reg, int64_t offset) {
    const std::string& name = registers_.name(reg);
    if (name.empty())
      return refuse("register " + std::to_string(reg) + " has no Breakpad name");
    stack_.push_back({name, true, static_cast<uint64_t>(offset) & mask_, UINT64_MAX});
    return true;
  }

  // a >= b for b > 0, when a is known to stay below 2b: a / b is 0 or 1.
  bool greaterOrEqual(const Value& a, uint64_t b, bool negate) {
    if (b == 0) {
      stack_.push_back(constant(negate ? 0 : 1));
      return true;
    }
    if (a.max >= sign_bit_ || b >= sign_bit_ || a.max / 2 >= b)
      return refuse("comparison over an unbounded value");
    Value quotient = binary(a, constant(b), "/", 1);
    stack_.push_back(negate ? binary(constant(1), quotient, "-", 1) : quotient);
    return true;
  }

  bool step(const DWARFExpression::Operation& op) {
    uint8_t code = op.getCode();
    auto operand = [&](unsigned i) { return op.getRawOperand(i); };
    if (code >= dwarf::DW_OP_lit0 && code <= dwarf::DW_OP_lit31) {
      stack_.push_back(constant(code - dwarf::DW_OP_lit0));
      return true;
    }
    if (code >= dwarf::DW_OP_breg0 && code <= dwarf::DW_OP_breg31)
      return pushRegister(code - dwarf::DW_OP_breg0, static_cast<int64_t>(operand(0)));
    Value a, b;
    switch (code) {
    case dwarf::DW_OP_nop:
      return true;
    case dwarf::DW_OP_addr:
    case dwarf::DW_OP_const1u:
    case dwarf::DW_OP_const2u:
    case dwarf::DW_OP_const4u:
    case dwarf::DW_OP_const8u:
    case dwarf::DW_OP_constu:
    case dwarf::DW_OP_const1s:
    case dwarf::DW_OP_const2s:
    case dwarf::DW_OP_const4s:
    case dwarf::DW_OP_const8s:
    case dwarf::DW_OP_consts:
      stack_.push_back(constant(operand(0)));
      return true;
    case dwarf::DW_OP_bregx:
      return pushRegister(operand(0), static_cast<int64_t>(operand(1)));
    case dwarf::DW_OP_dup:
      if (stack_.empty())
        return refuse("stack underflow");
      stack_.push_back(stack_.back());
      return true;
    case dwarf::DW_OP_drop:
      return pop(a);
    case dwarf::DW_OP_over:
    case dwarf::DW_OP_pick: {
      uint64_t depth = code == dwarf::DW_OP_over ? 1 : operand(0);
      if (depth >= stack_.size())
        return refuse("stack underflow");
      stack_.push_back(stack_[stack_.size() - 1 - depth]);
      return true;
    }
    case dwarf::DW_OP_swap:
      if (stack_.size() < 2)
        return refuse("stack underflow");
      std::swap(stack_[stack_.size() - 1], stack_[stack_.size() - 2]);
      return true;
    case dwarf::DW_OP_rot:
      if (stack_.size() < 3)
        return refuse("stack underflow");
      // (a b c -> c a b): the top moves under the next two.
      std::rotate(stack_.end() - 3, stack_.end() - 1, stack_.end());
      return true;
    case dwarf::DW_OP_deref:
      if (!pop(a))
        return false;
      stack_.push_back({render(a) + " ^", false, 0, UINT64_MAX});
      return true;
    case dwarf::DW_OP_deref_size:
      if (operand(0) != registers_.wordSize())
        return refuse("DW_OP_deref_size narrower than a word");
      if (!pop(a))
        return false;
      stack_.push_back({render(a) + " ^", false, 0, UINT64_MAX});
      return true;
    case dwarf::DW_OP_plus_uconst:
      if (!pop(a))
        return false;
      a.offset = (a.offset + operand(0)) & mask_;
      a.max = a.isConstant() ? a.offset : saturatingAdd(a.max, operand(0));
      stack_.push_back(a);
      return true;
    case dwarf::DW_OP_neg:
      if (!pop(a))
        return false;
      if (a.isConstant())
        stack_.push_back(constant(0 - a.offset));
      else
        stack_.push_back(binary(constant(0), a, "-", UINT64_MAX));
      return true;
    default:
      break;
    }

    // Binary operations: b is the top of the stack, a the one beneath.
    switch (code) {
    case dwarf::DW_OP_plus:
    case dwarf::DW_OP_minus:
    case dwarf::DW_OP_mul:
    case dwarf::DW_OP_div:
    case dwarf::DW_OP_mod:
    case dwarf::DW_OP_and:
    case dwarf::DW_OP_or:
    case dwarf::DW_OP_xor:
    case dwarf::DW_OP_shl:
    case dwarf::DW_OP_shr:
    case dwarf::DW_OP_shra:
    case dwarf::DW_OP_ge:
    case dwarf::DW_OP_gt:
    case dwarf::DW_OP_lt:
    case dwarf::DW_OP_le:
    case dwarf::DW_OP_eq:
    case dwarf::DW_OP_ne:
      if (!pop(b) || !pop(a))
        return false;
      break;
    default:
      return refuse(std::string("operation ") + dwarf::OperationEncodingString(code).str() +
                    " has no postfix equivalent");
    }

    if (a.isConstant() && b.isConstant())
      return foldConstants(code, a.offset, b.offset);

    switch (code) {
    case dwarf::DW_OP_plus:
      if (b.isConstant() || a.isConstant()) {
        Value& v = b.isConstant() ? a : b;
        uint64_t c = b.isConstant() ? b.offset : a.offset;
        v.offset = (v.offset + c) & mask_;
        v.max = saturatingAdd(v.max, c);
        stack_.push_back(v);
      } else {
        stack_.push_back(binary(a, b, "+", saturatingAdd(a.max, b.max)));
      }
      return true;
    case dwarf::DW_OP_minus:
      if (b.isConstant()) {
        a.offset = (a.offset - b.offset) & mask_;
        a.max = UINT64_MAX;
        stack_.push_back(a);
      } else {
        stack_.push_back(binary(a, b, "-", UINT64_MAX));
      }
      return true;
    case dwarf::DW_OP_mul: {
      uint64_t max = UINT64_MAX;
      if (a.max != UINT64_MAX && b.max != UINT64_MAX && (a.max == 0 || b.max <= UINT64_MAX / a.max))
        max = a.max * b.max;
      stack_.push_back(binary(a, b, "*", max));
      return true;
    }
    case dwarf::DW_OP_div:
      // DWARF divides signed; postfix unsigned. They agree on non-negative
      // operands.
      if (!b.isConstant() || b.offset == 0 || b.offset >= sign_bit_ || a.max >= sign_bit_)
        return refuse("signed division of a value that may be negative");
      stack_.push_back(binary(a, b, "/", a.max / b.offset));
      return true;
    case dwarf::DW_OP_mod:
      if (!b.isConstant() || b.offset == 0)
        return refuse("modulo by a non-constant");
      stack_.push_back(binary(a, b, "%", std::min(a.max, b.offset - 1)));
      return true;
    case dwarf::DW_OP_and: {
      Value& v = b.isConstant() ? a : b;
      if (!a.isConstant() && !b.isConstant())
        return refuse("bitwise and of two variables");
      uint64_t c = b.isConstant() ? b.offset : a.offset;
      if (auto bits = log2Exact(c + 1); bits && c != mask_) {
        // x & (2^k - 1) == x % 2^k
        stack_.push_back(binary(v, constant(c + 1), "%", std::min(v.max, c)));
        return true;
      }
      uint64_t alignment = (~c + 1) & mask_;
      if (log2Exact(alignment)) {
        // x & ~(2^k - 1) rounds down to a multiple of 2^k: postfix '@'.
        stack_.push_back(binary(v, constant(alignment), "@", v.max));
        return true;
      }
      if (c == mask_) {
        stack_.push_back(v);
        return true;
      }
      return refuse("bitwise and with a mask that is not 2^k-1 or -2^k");
    }
    case dwarf::DW_OP_shl:
    case dwarf::DW_OP_shr:
    case dwarf::DW_OP_shra: {
      if (!b.isConstant() || b.offset >= registers_.wordSize() * 8)
        return refuse("shift by a non-constant");
      if (code == dwarf::DW_OP_shra && a.max >= sign_bit_)
        return refuse("arithmetic shift of a value that may be negative");
      uint64_t factor = uint64_t(1) << b.offset;
      if (code == dwarf::DW_OP_shl) {
        uint64_t max = a.max <= UINT64_MAX / factor ? a.max * factor : UINT64_MAX;
        stack_.push_back(binary(a, constant(factor), "*", max));
      } else {
        stack_.push_back(binary(a, constant(factor), "/", a.max / factor));
      }
      return true;
    }
    case dwarf::DW_OP_ge:
    case dwarf::DW_OP_lt:
      if (!b.isConstant())
        return refuse("comparison with a non-constant");
      return greaterOrEqual(a, b.offset, code == dwarf::DW_OP_lt);
    case dwarf::DW_OP_gt:
    case dwarf::DW_OP_le:
      // a > b  ==  a >= b + 1
      if (!b.isConstant() || b.offset + 1 >= sign_bit_)
        return refuse("comparison with a non-constant");
      return greaterOrEqual(a, b.offset + 1, code == dwarf::DW_OP_le);
    default:
      return refuse(std::string("operation ") + dwarf::OperationEncodingString(code).str() +
                    " on a variable has no postfix equivalent");
    }
  }

  bool foldConstants(uint8_t code, uint64_t a, uint64_t b) {
    auto sa = static_cast<int64_t>(a & sign_bit_ ? a | ~mask_ : a);
    auto sb = static_cast<int64_t>(b & sign_bit_ ? b | ~mask_ : b);
    uint64_t r = 0;
    switch (code) {
    case dwarf::DW_OP_plus:
      r = a + b;
      break;
    case dwarf::DW_OP_minus:
      r = a - b;
      break;
    case dwarf::DW_OP_mul:
      r = a * b;
      break;
    case dwarf::DW_OP_div:
      if (sb == 0)
        return refuse("division by zero");
      r = static_cast<uint64_t>(sa / sb);
      break;
    case dwarf::DW_OP_mod:
      if (b == 0)
        return refuse("division by zero");
      r = a % b;
      break;
    case dwarf::DW_OP_and:
      r = a & b;
      break;
    case dwarf::DW_OP_or:
      r = a | b;
      break;
    case dwarf::DW_OP_xor:
      r = a ^ b;
      break;
    case dwarf::DW_OP_shl:
      r = b >= 64 ? 0 : a << b;
      break;
    case dwarf::DW_OP_shr:
      r = b >= 64 ? 0 : a >> b;
      break;
    case dwarf::DW_OP_shra:
      r = static_cast<uint64_t>(b >= 64 ? (sa < 0 ? -1 : 0) : sa >> b);
      break;
    case dwarf::DW_OP_ge:
      r = sa >= sb;
      break;
    case dwarf::DW_OP_gt:
      r = sa > sb;
      break;
    case dwarf::DW_OP_lt:
      r = sa < sb;
      break;
    case dwarf::DW_OP_le:
      r = sa <= sb;
      break;
    case dwarf::DW_OP_eq:
      r = a == b;
      break;
    case dwarf::DW_OP_ne:
      r = a != b;
      break;
    default:
      return refuse("unsupported constant operation");
    }
    stack_.push_back(constant(r));
    return true;
  }

  const RegisterNames& registers_;
  uint64_t mask_;
  uint64_t sign_bit_;
  std::vector<Value> stack_;
  std::string reason_;
};

} // namespace

PostfixResult translateExpression(StringRef expression, bool little_endian,
                                  const RegisterNames& registers, bool push_cfa, bool dereference) {
  return Translator(registers).run(expression, little_endian, push_cfa, dereference);
}

} // namespace dumpsyms
