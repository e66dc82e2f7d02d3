// A frame's name as a crash signature spells it (Socorro's rules, our
// code): a function without its parameters, return type, qualifiers and
// clone suffixes, its template arguments collapsed to <T>, clang's lambda
// numbers and Rust's hash dropped; a frame without a function is its
// module and offset, without a module its address. Two builds of one bug
// give one name; two bugs in one function give one name too, which is what
// grouping by function means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dumpsyms {

// "int ns::Foo<int, char>::bar(long) const [clone .cold]" -> "ns::Foo<T>::bar".
std::string normalizeFunctionName(const std::string& function);

// One frame of the crashing thread, as the walker or the symbolizer
// resolved it.
struct SignatureFrame {
  std::string function;           // "" when no symbol covers the frame
  std::string module;             // the module's file name (no directory); "" without one
  std::optional<uint64_t> offset; // in the module
  uint64_t address = 0;           // absolute
};

// normalizeFunctionName(function), else "<module>@0x<offset>", else
// "@0x<address>" (lower-case hex).
std::string signatureFrameName(const SignatureFrame& frame);

} // namespace dumpsyms
