#include "dump/pdb/windows_names.h"

#include <cstdlib>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Demangle/Demangle.h>
#include <string_view>

namespace dumpsyms {

std::string spellAnonymousNamespaces(std::string name) {
  constexpr std::string_view kMangled = "?A0x";
  constexpr std::string_view kSpelled = "`anonymous namespace'";
  for (size_t at = name.find(kMangled); at != std::string::npos; at = name.find(kMangled, at)) {
    size_t end = at + kMangled.size();
    while (end < name.size() && llvm::isHexDigit(name[end]))
      ++end;
    if (end == at + kMangled.size()) { // "?A0x" and no key: not a namespace
      at = end;
      continue;
    }
    name.replace(at, end - at, kSpelled);
    at += kSpelled.size();
  }
  return name;
}

UndecoratedName undecorateName(llvm::StringRef name, bool x86) {
  UndecoratedName result;
  if (isMsvcMangled(name)) {
    int status = 0;
    char* demangled = llvm::microsoftDemangle(
        name, nullptr, &status,
        llvm::MSDemangleFlags(llvm::MSDF_NoAccessSpecifier | llvm::MSDF_NoCallingConvention |
                              llvm::MSDF_NoMemberType | llvm::MSDF_NoReturnType));
    result.name = demangled && status == 0 ? demangled : name.str();
    std::free(demangled);
    return result;
  }
  if (!x86) {
    result.name = name.str();
    return result;
  }
  // __cdecl "_f", __stdcall "_f@8", __fastcall "@f@8", __vectorcall "f@@8".
  llvm::StringRef rest = name;
  if (rest.starts_with("_") || rest.starts_with("@"))
    rest = rest.drop_front();
  size_t at = rest.rfind('@');
  if (at != llvm::StringRef::npos && at + 1 < rest.size() &&
      llvm::all_of(rest.substr(at + 1), llvm::isDigit)) {
    unsigned long long size = 0;
    if (!llvm::getAsUnsignedInteger(rest.substr(at + 1), 10, size))
      result.stack_parameter_size = uint32_t(size);
    rest = rest.take_front(at);
  }
  if (rest.ends_with("@"))
    rest = rest.drop_back();
  result.name = rest.empty() ? name.str() : rest.str();
  return result;
}

} // namespace dumpsyms
