#include "dump/object/dlang_demangle.h"

#include "dump/object/dlang_reader.h"

namespace dumpsyms {

using dlang::DlangReader;

namespace {

// Data symbols whose last element is one of the compiler's: GNU's tools
// say what they are for.
std::optional<std::string> specialSymbol(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kSpecial[] = {
      {"6__initZ", "initializer for "},
      {"6__vtblZ", "vtable for "},
      {"7__ClassZ", "ClassInfo for "},
      {"12__ModuleInfoZ", "ModuleInfo for "},
      {"11__InterfaceZ", "Interface for "}};
  for (const auto& [suffix, prefix] : kSpecial) {
    if (name.size() <= suffix.size() + 2 || name.substr(name.size() - suffix.size()) != suffix)
      continue;
    std::string scope = std::string(name.substr(0, name.size() - suffix.size())) + "Z";
    DlangReader reader(scope);
    std::string out;
    if (reader.mangledName(out) && reader.atEnd())
      return std::string(prefix) + out;
  }
  return std::nullopt;
}

} // namespace

std::optional<std::string> demangleDlang(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_D")
    return std::nullopt;
  if (name == "_Dmain")
    return std::string("D main");
  if (std::optional<std::string> special = specialSymbol(name))
    return special;
  DlangReader reader(name);
  std::string out;
  if (!reader.mangledName(out) || !reader.atEnd())
    return std::nullopt;
  return out;
}

} // namespace dumpsyms
