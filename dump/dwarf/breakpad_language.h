// What the source language of a unit changes in Breakpad's spelling of
// function names: whether a linkage name is demangled, and how a name is
// joined to the names of the scopes around it. Breakpad's dump_syms
// (src/common/language.cc) treats C, C++ and every language it does not
// know as C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dumpsyms {

class BreakpadLanguage {
public:
  // The rules for a unit whose DW_AT_language is `language` (none: C++).
  static BreakpadLanguage forUnit(std::optional<uint64_t> language);

  // What Breakpad names a function after given its linkage name: the
  // demangled form, the linkage name as it is (Rust and Swift, which it
  // does not demangle but prefers to a name without parameters), or nothing
  // when the linkage name only stands in for a missing DW_AT_name (a C asm
  // label, a name __cxa_demangle rejects, languages without mangling).
  std::optional<std::string> qualifiedFromLinkageName(const std::string& linkage) const;

  // `name` inside the scope called `enclosing` ("" at the top level).
  std::string qualify(const std::string& enclosing, const std::string& name) const;

private:
  enum class Demangling { Itanium, AsItIs, Never };
  enum class Joining { CxxScopes, Dots, Never, CxxExceptObjCMethods };
  BreakpadLanguage(Demangling demangling, Joining joining)
      : demangling_(demangling), joining_(joining) {}

  Demangling demangling_;
  Joining joining_;
};

} // namespace dumpsyms
