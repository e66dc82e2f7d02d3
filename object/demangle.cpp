#include "object/demangle.h"

#include <cstdlib>
#include <cxxabi.h>
#include <llvm/Demangle/Demangle.h>
#include <memory>

namespace dumpsyms {

std::string demangle(llvm::StringRef name) {
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
