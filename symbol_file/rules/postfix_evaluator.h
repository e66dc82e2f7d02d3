// Evaluates Breakpad's postfix language: STACK CFI rules (one expression
// per register) and STACK WIN programs (assignments), as the processor does.
// Given the callee's registers and a way to read its memory, it computes the
// caller's registers. The tests unwind real crashes with it.
#pragma once

#include "symbol_file/model/module.h"
#include "symbol_file/rules/register_names.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dumpsyms {

// Register (or variable) name -> value.
using RegisterValues = std::map<std::string, uint64_t>;
// Reads one word at an address; std::nullopt where memory is unknown.
using MemoryReader = std::function<std::optional<uint64_t>(uint64_t address)>;

class PostfixEvaluator {
public:
  // `word_size` is 4 or 8 bytes: arithmetic wraps there, `^` reads that much.
  PostfixEvaluator(unsigned word_size, MemoryReader memory);

  // The value of one expression over `values`; std::nullopt when it fails
  // (unknown name, memory not available, division by zero, malformed, a
  // stack deeper than limits::kMaxExpressionStack).
  std::optional<uint64_t> evaluate(const std::string& expression,
                                   const RegisterValues& values) const;

  // Runs a STACK WIN program ("$T0 $ebp = $eip $T0 4 + ^ = ..."), updating
  // `values` as each assignment runs. False when it fails or leaves values.
  // `assigned`, when given, gets the name of every variable assigned.
  bool execute(const std::string& program, RegisterValues& values,
               std::set<std::string>* assigned = nullptr) const;

private:
  std::optional<uint64_t> token(const std::string& token, const RegisterValues& values) const;

  unsigned word_size_;
  uint64_t mask_;
  MemoryReader memory_;
};

// Parses a STACK CFI rule list (".cfa: $rsp 8 + .ra: .cfa -8 + ^") into
// rules; std::nullopt when malformed.
std::optional<std::vector<CfiRule>> parseCfiRules(const std::string& text);

// The rules in force at `address` within `frame`: the initial rules updated
// by every change at or before it.
std::map<std::string, std::string> cfiRulesAt(const CfiFrame& frame, uint64_t address);

// Recovers the caller's registers from the callee's, as the processor's CFI
// walker does: `.cfa` first, then `.ra` and every other rule (each may use
// `.cfa`); the caller's stack pointer is the CFA and its program counter the
// return address unless a rule names them; callee-saved registers without a
// rule keep their value. std::nullopt when `.cfa` or `.ra` cannot be
// computed.
std::optional<RegisterValues>
recoverCallerRegisters(const std::map<std::string, std::string>& rules,
                       const RegisterValues& callee, const RegisterNames& registers,
                       uint16_t machine, const MemoryReader& memory);

} // namespace dumpsyms
