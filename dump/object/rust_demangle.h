// Rust's legacy symbol mangling (`_ZN...17h<16 hex digits>E`), read as
// Mozilla's dump_syms, rust-minidump and Sentry show it: the path with its
// `$LT$`-style escapes decoded and without the trailing hash, which changes
// with every build and would split one crash into many signatures.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dumpsyms {

// The demangled path of a legacy-mangled Rust symbol, or nothing when
// `name` is not one (the last path element must be the `h` + 16 hex digit
// hash rustc appends, so C++ names are never taken for Rust ones). An LTO
// `.llvm.<digits>` suffix is dropped too; any other `.suffix` is kept, and
// so is a `$` that starts no escape of the scheme.
std::optional<std::string> demangleRustLegacy(std::string_view name);

} // namespace dumpsyms
