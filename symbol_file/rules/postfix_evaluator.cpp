#include "symbol_file/rules/postfix_evaluator.h"

#include "common/limits/input_limits.h"

#include <charconv>
#include <llvm/BinaryFormat/ELF.h>
#include <sstream>

namespace dumpsyms {

namespace {

std::vector<std::string> tokens(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string token;
  while (in >> token)
    out.push_back(token);
  return out;
}

std::optional<int64_t> decimal(const std::string& token) {
  int64_t value = 0;
  const char* end = token.data() + token.size();
  auto [ptr, error] = std::from_chars(token.data(), end, value);
  if (error != std::errc() || ptr != end)
    return std::nullopt;
  return value;
}

// The registers each CPU's walker assumes unchanged when no rule says
// otherwise (spec section 8.2).
std::vector<std::string> calleeSaved(uint16_t machine) {
  using namespace llvm::ELF;
  switch (machine) {
  case EM_386:
    return {"$ebp", "$ebx", "$esi", "$edi"};
  case EM_X86_64:
    return {"$rbx", "$rbp", "$r12", "$r13", "$r14", "$r15"};
  case EM_ARM:
    return {"r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11"};
  case EM_AARCH64:
    return {"x19", "x20", "x21", "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29"};
  case EM_MIPS:
    return {"$s0", "$s1", "$s2", "$s3", "$s4", "$s5", "$s6", "$s7", "$sp", "$fp"};
  case EM_RISCV:
    return {"s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11"};
  default:
    return {};
  }
}

} // namespace

PostfixEvaluator::PostfixEvaluator(unsigned word_size, MemoryReader memory)
    : word_size_(word_size),
      mask_(word_size >= 8 ? UINT64_MAX : (uint64_t(1) << (8 * word_size)) - 1),
      memory_(std::move(memory)) {}

std::optional<uint64_t> PostfixEvaluator::token(const std::string& token,
                                                const RegisterValues& values) const {
  if (auto value = decimal(token))
    return static_cast<uint64_t>(*value) & mask_;
  auto found = values.find(token);
  if (found == values.end())
    return std::nullopt;
  return found->second & mask_;
}

std::optional<uint64_t> PostfixEvaluator::evaluate(const std::string& expression,
                                                   const RegisterValues& values) const {
  std::vector<uint64_t> stack;
  for (const std::string& t : tokens(expression)) {
    if (t == "+" || t == "-" || t == "*" || t == "/" || t == "%" || t == "@") {
      if (stack.size() < 2)
        return std::nullopt;
      uint64_t b = stack.back();
      stack.pop_back();
      uint64_t a = stack.back();
      stack.pop_back();
      uint64_t r = 0;
      if (t == "+")
        r = a + b;
      else if (t == "-")
        r = a - b;
      else if (t == "*")
        r = a * b;
      else if (t == "/" || t == "%") {
        if (b == 0)
          return std::nullopt;
        r = t == "/" ? a / b : a % b;
      } else {
        if (b == 0 || (b & (b - 1)) != 0)
          return std::nullopt;
        r = a & ~(b - 1);
      }
      stack.push_back(r & mask_);
    } else if (t == "^") {
      if (stack.empty() || !memory_)
        return std::nullopt;
      std::optional<uint64_t> word = memory_(stack.back());
      if (!word)
        return std::nullopt;
      stack.back() = *word & mask_;
    } else {
      std::optional<uint64_t> value = token(t, values);
      if (!value || stack.size() >= limits::kMaxExpressionStack)
        return std::nullopt;
      stack.push_back(*value);
    }
  }
  if (stack.size() != 1)
    return std::nullopt;
  return stack.back();
}

bool PostfixEvaluator::execute(const std::string& program, RegisterValues& values,
                               std::set<std::string>* assigned) const {
  static const std::string kAssign = "=";
  // Operands are kept as text until used, so that an assignment's target
  // (a name) and a value can share the stack, as in the processor.
  std::vector<std::string> stack;
  auto valueOf = [&](const std::string& operand) -> std::optional<uint64_t> {
    return token(operand, values);
  };
  for (const std::string& raw : tokens(program)) {
    // "=$eip": an assignment glued to the next operand.
    bool glued = raw.size() > 1 && raw[0] == '=';
    const std::string& t = glued ? kAssign : raw;
    if (t == "=") {
      if (stack.size() < 2)
        return false;
      std::optional<uint64_t> value = valueOf(stack.back());
      stack.pop_back();
      std::string name = stack.back();
      stack.pop_back();
      if (!value || name.empty() || name[0] != '$')
        return false;
      values[name] = *value;
      if (assigned)
        assigned->insert(name);
    } else if (t == "^" || t == "+" || t == "-" || t == "*" || t == "/" || t == "%" || t == "@") {
      std::string expression;
      if (t == "^") {
        if (stack.empty())
          return false;
        expression = stack.back() + " ^";
        stack.pop_back();
      } else {
        if (stack.size() < 2)
          return false;
        expression = stack[stack.size() - 2] + " " + stack.back() + " " + t;
        stack.resize(stack.size() - 2);
      }
      std::optional<uint64_t> value = evaluate(expression, values);
      if (!value)
        return false;
      stack.push_back(std::to_string(static_cast<int64_t>(*value)));
    } else {
      stack.push_back(t);
    }
    if (glued)
      stack.push_back(raw.substr(1));
    if (stack.size() > limits::kMaxExpressionStack)
      return false;
  }
  return stack.empty();
}

std::optional<std::vector<CfiRule>> parseCfiRules(const std::string& text) {
  std::vector<CfiRule> rules;
  for (const std::string& t : tokens(text)) {
    if (t.size() > 1 && t.back() == ':') {
      rules.push_back({t.substr(0, t.size() - 1), ""});
    } else {
      if (rules.empty())
        return std::nullopt;
      if (!rules.back().expression.empty())
        rules.back().expression += ' ';
      rules.back().expression += t;
    }
  }
  for (const CfiRule& rule : rules)
    if (rule.expression.empty())
      return std::nullopt;
  return rules;
}

std::map<std::string, std::string> cfiRulesAt(const CfiFrame& frame, uint64_t address) {
  std::map<std::string, std::string> rules;
  for (const CfiRule& rule : frame.initial)
    rules[rule.name] = rule.expression;
  for (const CfiChange& change : frame.changes)
    if (change.address <= address)
      for (const CfiRule& rule : change.rules)
        rules[rule.name] = rule.expression;
  return rules;
}

std::optional<RegisterValues>
recoverCallerRegisters(const std::map<std::string, std::string>& rules,
                       const RegisterValues& callee, const RegisterNames& registers,
                       uint16_t machine, const MemoryReader& memory) {
  PostfixEvaluator evaluator(registers.wordSize(), memory);
  auto cfa_rule = rules.find(".cfa");
  auto ra_rule = rules.find(".ra");
  if (cfa_rule == rules.end() || ra_rule == rules.end())
    return std::nullopt;
  std::optional<uint64_t> cfa = evaluator.evaluate(cfa_rule->second, callee);
  if (!cfa)
    return std::nullopt;
  RegisterValues with_cfa = callee;
  with_cfa[".cfa"] = *cfa;
  std::optional<uint64_t> ra = evaluator.evaluate(ra_rule->second, with_cfa);
  if (!ra)
    return std::nullopt;

  RegisterValues caller;
  for (const std::string& name : calleeSaved(machine)) {
    auto value = callee.find(name);
    if (value != callee.end())
      caller[name] = value->second;
  }
  for (const auto& [name, expression] : rules) {
    if (name == ".cfa" || name == ".ra")
      continue;
    if (std::optional<uint64_t> value = evaluator.evaluate(expression, with_cfa))
      caller[name] = *value;
    else
      caller.erase(name); // not recoverable (.undef, unreadable memory)
  }
  // The caller's stack pointer is the CFA unless a rule says otherwise (a
  // callee-saved copy of it, as mips lists $sp, is the callee's own).
  if (!rules.count(registers.stackPointer()))
    caller[registers.stackPointer()] = *cfa;
  if (!caller.count(registers.programCounter()))
    caller[registers.programCounter()] = *ra;
  return caller;
}

} // namespace dumpsyms
