#include "dump/pdb/breakpad_pdb_names.h"

#include "dump/pdb/undname_printer.h"

#include <cstdint>
#include <optional>

namespace dumpsyms {

namespace {

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// "?f@@YAXXZ.llvm.123" or "?f@@YAXXZ$" + 32 hex digits: the name before
// the suffix LLVM added to make it unique, when that undecorates.
std::optional<std::string> undecorateWithoutLlvmSuffix(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    bool dot = name[i] == '.';
    bool hash = name[i] == '$' && name.size() - i == 33;
    if (hash)
      for (size_t j = i + 1; j < name.size(); ++j)
        hash = hash && isHexDigit(name[j]);
    if (dot || hash)
      return undnameStyle(name.substr(0, i));
  }
  return std::nullopt;
}

void replaceTrailingVoid(std::string& name) {
  constexpr std::string_view kVoid = "(void)";
  if (name.size() >= kVoid.size() && name.ends_with(kVoid))
    name.replace(name.size() - kVoid.size(), kVoid.size(), "()");
}

// Breakpad's reading of the digits after a decoration's last '@': decimal,
// no sign, no leading zero, within an int; no digits at all read as 0.
std::optional<uint32_t> decorationSize(std::string_view digits) {
  if (digits.size() > 1 && digits.front() == '0')
    return std::nullopt;
  uint64_t value = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
    if (value > INT32_MAX)
      return std::nullopt;
  }
  return uint32_t(value);
}

} // namespace

BreakpadPdbName breakpadNameOfDecorated(std::string_view decorated) {
  BreakpadPdbName result;
  if (decorated.empty()) {
    result.name = "<name omitted>";
    return result;
  }
  std::string name(decorated);
  if (decorated.front() == '?') {
    if (auto undecorated = undnameStyle(decorated))
      name = *undecorated;
    else if (auto unsuffixed = undecorateWithoutLlvmSuffix(decorated))
      name = *unsuffixed;
  }
  replaceTrailingVoid(name);
  bool is_c = name.find_first_of(":(") == std::string::npos;
  if (is_c && (name.front() == '_' || name.front() == '@')) {
    size_t at = name.rfind('@');
    std::optional<uint32_t> size = at != std::string::npos && at > 0
                                       ? decorationSize(std::string_view(name).substr(at + 1))
                                       : std::nullopt;
    if (size) {
      result.stack_parameter_size = name.front() == '@' ? (*size > 8 ? *size - 8 : 0) : *size;
      name = name.substr(1, at - 1);
    } else if (name.front() == '_') {
      name.erase(0, 1);
    }
  }
  result.name = std::move(name);
  return result;
}

std::string breakpadNameOfLocal(std::string dia_name) {
  replaceTrailingVoid(dia_name);
  return dia_name;
}

} // namespace dumpsyms
