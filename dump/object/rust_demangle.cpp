#include "dump/object/rust_demangle.h"

#include <vector>

namespace dumpsyms {

namespace {

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

// The hash rustc puts last: `h` and exactly 16 lower-case hex digits.
bool isRustHash(std::string_view element) {
  if (element.size() != 17 || element[0] != 'h')
    return false;
  for (char c : element.substr(1))
    if (!isHexDigit(c))
      return false;
  return true;
}

void appendUtf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xc0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xe0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (code & 0x3f));
  }
}

// One `$...$` escape of the legacy scheme (without its dollars).
bool appendEscape(std::string_view escape, std::string& out) {
  static constexpr std::pair<std::string_view, char> kNamed[] = {
      {"SP", '@'}, {"BP", '*'}, {"RF", '&'}, {"LT", '<'},
      {"GT", '>'}, {"LP", '('}, {"RP", ')'}, {"C", ','}};
  for (const auto& [code, text] : kNamed) {
    if (escape == code) {
      out += text;
      return true;
    }
  }
  // `u` and the hex digits of a Unicode scalar value: `$u20$` is a space.
  if (escape.size() < 2 || escape.size() > 7 || escape[0] != 'u')
    return false;
  uint32_t code = 0;
  for (char c : escape.substr(1)) {
    if (!isHexDigit(c))
      return false;
    code = code * 16 + static_cast<uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code < 0x20)
    return false;
  appendUtf8(out, code);
  return true;
}

// One path element with its escapes decoded; `..` is `::` (a path inside a
// generic argument, `Vec$LT$alloc..string..String$GT$`). A `$` that starts
// no escape we know is kept as it is: the name is still Rust's, and its
// hash still has to go.
void appendElement(std::string_view element, std::string& out) {
  // rustc puts `_` before an element that would start with `$`.
  if (element.size() >= 2 && element[0] == '_' && element[1] == '$')
    element.remove_prefix(1);
  while (!element.empty()) {
    if (element.substr(0, 2) == "..") {
      out += "::";
      element.remove_prefix(2);
    } else if (element[0] == '$') {
      size_t end = element.find('$', 1);
      if (end != std::string_view::npos && appendEscape(element.substr(1, end - 1), out)) {
        element.remove_prefix(end + 1);
      } else {
        out += '$';
        element.remove_prefix(1);
      }
    } else {
      out += element[0];
      element.remove_prefix(1);
    }
  }
}

// `.llvm.` and hex digits (and `@`): a name LTO made unique, not the source's.
bool isLlvmSuffix(std::string_view suffix) {
  constexpr std::string_view kPrefix = ".llvm.";
  if (suffix.substr(0, kPrefix.size()) != kPrefix || suffix.size() == kPrefix.size())
    return false;
  for (char c : suffix.substr(kPrefix.size()))
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || c == '@'))
      return false;
  return true;
}

} // namespace

std::optional<std::string> demangleRustLegacy(std::string_view name) {
  // `__ZN` is the Mach-O spelling with its C underscore still on.
  if (name.substr(0, 4) == "__ZN")
    name.remove_prefix(4);
  else if (name.substr(0, 3) == "_ZN")
    name.remove_prefix(3);
  else
    return std::nullopt;
  std::vector<std::string_view> elements;
  while (!name.empty() && name[0] != 'E') {
    size_t length = 0;
    size_t digits = 0;
    while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') {
      length = length * 10 + static_cast<size_t>(name[digits] - '0');
      if (++digits > 6)
        return std::nullopt;
    }
    if (digits == 0 || length == 0 || length > name.size() - digits)
      return std::nullopt;
    std::string_view element = name.substr(digits, length);
    for (char c : element)
      if (c <= ' ' || c > '~')
        return std::nullopt;
    elements.push_back(element);
    name.remove_prefix(digits + length);
  }
  if (name.empty() || elements.size() < 2 || !isRustHash(elements.back()))
    return std::nullopt;
  std::string_view suffix = name.substr(1); // after the `E`
  if (isLlvmSuffix(suffix))
    suffix = {};
  else if (!suffix.empty() && suffix[0] != '.')
    return std::nullopt;
  elements.pop_back();
  std::string out;
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0)
      out += "::";
    appendElement(elements[i], out);
  }
  out += suffix;
  return out;
}

} // namespace dumpsyms
