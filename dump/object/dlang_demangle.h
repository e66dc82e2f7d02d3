// D's symbol mangling (https://dlang.org/spec/abi.html#name_mangling), read
// as GNU's tools read it (c++filt -s dlang, gdb, perf): the qualified name
// with template arguments and the parameter types, without the return type
// or attributes: `_D4sums__T5twiceTiZQjFNaNbNiNfiZi` is
// `sums.twice!(int).twice(int)`. LLVM 19's D demangler stops at the first
// function type, so it names almost no D function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dumpsyms {

// The demangled form of a `_D` symbol, or nothing when `name` is not one
// this reader understands whole.
std::optional<std::string> demangleDlang(std::string_view name);

} // namespace dumpsyms
