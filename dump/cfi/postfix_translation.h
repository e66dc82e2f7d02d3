// DWARF expressions (as used in call-frame rules) rewritten in Breakpad's
// postfix language, wherever postfix can compute the same value.
#pragma once

#include "symbol_file/rules/register_names.h"

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <optional>
#include <string>

namespace dumpsyms {

struct PostfixResult {
  std::string postfix; // empty when the expression cannot be translated
  std::string reason;  // why not, for -v
};

// Translates `expression` (raw bytes). With `push_cfa`, the CFA is on the
// stack when evaluation starts (DW_CFA_expression, DW_CFA_val_expression).
// With `dereference`, the result is the word stored at the computed address.
PostfixResult translateExpression(llvm::StringRef expression, bool little_endian,
                                  const RegisterNames& registers, bool push_cfa, bool dereference);

// A postfix literal: signed decimal at the CPU's word size.
std::string postfixLiteral(uint64_t value, unsigned word_size);

} // namespace dumpsyms
