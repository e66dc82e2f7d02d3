#include "dump/dwarf/breakpad_language.h"

#include "dump/object/demangle.h"

#include <llvm/BinaryFormat/Dwarf.h>

namespace dumpsyms {

using namespace llvm;

BreakpadLanguage BreakpadLanguage::forUnit(std::optional<uint64_t> language) {
  switch (language.value_or(dwarf::DW_LANG_C_plus_plus)) {
  case dwarf::DW_LANG_Java:
    return {Demangling::Never, Joining::Dots};
  case dwarf::DW_LANG_Swift:
  case dwarf::DW_LANG_Rust:
    return {Demangling::AsItIs, Joining::Dots};
  case dwarf::DW_LANG_Mips_Assembler:
    return {Demangling::Never, Joining::Never};
  case dwarf::DW_LANG_ObjC:
    // Methods are already named `-[Class method]`.
    return {Demangling::Never, Joining::Never};
  case dwarf::DW_LANG_ObjC_plus_plus:
    return {Demangling::Itanium, Joining::CxxExceptObjCMethods};
  default:
    return {Demangling::Itanium, Joining::CxxScopes};
  }
}

std::optional<std::string>
BreakpadLanguage::qualifiedFromLinkageName(const std::string& linkage) const {
  switch (demangling_) {
  case Demangling::AsItIs:
    return linkage;
  case Demangling::Never:
    return std::nullopt;
  case Demangling::Itanium:
    // Only names that look mangled go to the demangler ("_Z" and more).
    if (linkage.size() > 2 && linkage.compare(0, 2, "_Z") == 0)
      return cxaDemangle(linkage);
    return std::nullopt;
  }
  return std::nullopt;
}

std::string BreakpadLanguage::qualify(const std::string& enclosing, const std::string& name) const {
  bool objc_method = name.size() >= 2 && (name[0] == '-' || name[0] == '+') && name[1] == '[';
  if (enclosing.empty() || joining_ == Joining::Never ||
      (joining_ == Joining::CxxExceptObjCMethods && objc_method))
    return name;
  return enclosing + (joining_ == Joining::Dots ? "." : "::") + name;
}

} // namespace dumpsyms
