// Runs the call-frame instructions of one FDE (after its CIE's initial
// instructions) and returns the rule table they describe: one row per
// address at which the rules change, as DWARF 5 section 6.4 defines it.
//
// This is our own reading of the instructions LLVM decodes; the tests hold
// it against llvm-dwarfdump's rows, which come from LLVM's separate one.
#pragma once

#include <cstdint>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// How to find a column's value in the caller (DWARF's register rules).
struct ColumnRule {
  enum class Kind {
    Undefined,       // not recoverable
    SameValue,       // unchanged from the callee
    AtCfaOffset,     // saved at CFA + offset
    CfaOffset,       // the value CFA + offset
    InRegister,      // the callee's value of `reg`
    AtExpression,    // saved at the address `expression` computes (CFA pushed first)
    ExpressionValue, // the value `expression` computes (CFA pushed first)
  };
  Kind kind = Kind::Undefined;
  int64_t offset = 0;
  uint64_t reg = 0;
  std::string expression; // raw DWARF expression bytes

  bool operator==(const ColumnRule&) const = default;
};

struct CfaRule {
  bool is_expression = false;
  uint64_t reg = 0;
  int64_t offset = 0;
  std::string expression; // raw DWARF expression bytes when is_expression

  bool operator==(const CfaRule&) const = default;
};

struct RuleState {
  std::optional<CfaRule> cfa;
  std::map<uint64_t, ColumnRule> columns; // absent: the architecture's default

  bool operator==(const RuleState&) const = default;
};

struct RuleRow {
  uint64_t address = 0;
  RuleState state;
};

struct RuleTable {
  std::vector<RuleRow> rows; // ascending addresses inside the FDE's range
  std::string error;         // non-empty when the program stopped early
};

RuleTable runFrameProgram(const llvm::dwarf::FDE& fde);

} // namespace dumpsyms
