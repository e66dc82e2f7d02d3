#include "dump/object/demangle.h"

#include "dump/object/dlang_demangle.h"
#include "dump/object/rust_demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/Demangle/Demangle.h>
#include <memory>

namespace dumpsyms {

namespace {

// gfortran lower-cases identifiers, so the upper-case `_MOD_` it joins
// module and procedure with cannot be part of either.
bool isFortranIdentifier(llvm::StringRef text) {
  if (text.empty() || !(text[0] >= 'a' && text[0] <= 'z'))
    return false;
  return llvm::all_of(
      text, [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

} // namespace

std::optional<std::string> fortranModuleProcedure(llvm::StringRef name) {
  if (!name.consume_front("__"))
    return std::nullopt;
  auto [module, procedure] = name.split("_MOD_");
  if (!isFortranIdentifier(module) || !isFortranIdentifier(procedure))
    return std::nullopt;
  return module.str() + "::" + procedure.str();
}

std::string demangle(llvm::StringRef name) {
  std::string_view view(name.data(), name.size());
  if (std::optional<std::string> rust = demangleRustLegacy(view))
    return std::move(*rust);
  if (std::optional<std::string> d = demangleDlang(view))
    return std::move(*d);
  if (std::optional<std::string> fortran = fortranModuleProcedure(name))
    return std::move(*fortran);
  std::string result;
  if (llvm::nonMicrosoftDemangle(std::string_view(name.data(), name.size()), result))
    return result;
  return name.str();
}

std::optional<std::string> cxaDemangle(llvm::StringRef name) {
  // __cxa_demangle wants a NUL-terminated string; a StringRef need not be one.
  std::string input = name.str();
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> result(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !result)
    return std::nullopt;
  return std::string(result.get());
}

std::string demangleSymbol(llvm::StringRef name, NameStyle style) {
  if (style == NameStyle::Llvm)
    return demangle(name);
  if (std::optional<std::string> demangled = cxaDemangle(name))
    return std::move(*demangled);
  return name.str();
}

} // namespace dumpsyms
