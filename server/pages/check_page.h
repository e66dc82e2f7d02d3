// The check page (/ui/check): the form that takes a .sym (not stored) and,
// optionally, a second one to compare it with; and the answer: what
// `symtool validate` finds (each problem by line), the module page's
// sections for the file, the address it was asked to look up, and what
// `symtool diff` finds against the second file.
#pragma once

#include "server/pages/module_page.h"
#include "symbol_file/analysis/symbol_diff.h"
#include "symbol_file/analysis/symbol_validate.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dumpsyms {

struct CheckPageInput {
  std::string file_name; // as the browser sent it
  uint64_t size = 0;
  const ModuleSummary* summary = nullptr;
  std::vector<ValidationProblem> problems;
  size_t problems_shown = 0; // problems holds at most this many; `problem_count` counts all
  size_t problem_count = 0;
  std::optional<LookupAnswer> lookup;
  std::string other_name;         // "" when no second file was given
  std::optional<SymbolDiff> diff; // set with other_name
  std::string stored_page;        // the store's module page for this id, "" when none
};

std::string renderCheckResult(const CheckPageInput& input);

std::string renderCheckForm(bool needs_token, std::string_view error, uint64_t max_bytes);

} // namespace dumpsyms
