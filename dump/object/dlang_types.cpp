// DlangReader (dlang_reader.h): types: basic, modified, arrays, pointers, functions and delegates
// with their attributes and parameters.
#include "dump/object/dlang_reader.h"

namespace dumpsyms::dlang {

bool DlangReader::isCallConvention(char c) {
  return c == 'F' || c == 'U' || c == 'W' || c == 'V' || c == 'R' || c == 'Y';
}

bool DlangReader::typeModifiers(std::string& out) {
  while (true) {
    const char* word = nullptr;
    if (consume('x'))
      word = "const";
    else if (consume('y'))
      word = "immutable";
    else if (consume('O'))
      word = "shared";
    else if (peek() == 'N' && peek(1) == 'g' && (pos_ += 2))
      word = "inout";
    else
      return true;
    if (!out.empty())
      out += ' ';
    out += word;
  }
}

bool DlangReader::functionAttributes(std::string* out) {
  while (peek() == 'N') {
    const char* word = nullptr;
    switch (peek(1)) {
    case 'a':
      word = "pure";
      break;
    case 'b':
      word = "nothrow";
      break;
    case 'c':
      word = "ref";
      break;
    case 'd':
      word = "@property";
      break;
    case 'e':
      word = "@trusted";
      break;
    case 'f':
      word = "@safe";
      break;
    case 'i':
      word = "@nogc";
      break;
    case 'j':
      word = "return";
      break;
    case 'l':
      word = "scope";
      break;
    case 'm':
      word = "@live";
      break;
    default:
      return true; // Ng, Nk, Nh, Nn...: not an attribute
    }
    pos_ += 2;
    if (out) {
      *out += ' ';
      *out += word;
    }
  }
  return true;
}

bool DlangReader::parameters(std::string& out) {
  out += '(';
  if (!separated(out, &DlangReader::parameter, text_.size(), /*variadic=*/true))
    return false;
  out += ')';
  return true;
}

bool DlangReader::separated(std::string& out, bool (DlangReader::*item)(std::string&), size_t end,
                            bool variadic) {
  bool first = true;
  while (!consume('Z')) {
    if (variadic && consume('X')) { // T t...
      out += "...";
      return true;
    }
    if (variadic && consume('Y')) { // C-style variadic
      out += first ? "..." : ", ...";
      return true;
    }
    if (pos_ >= text_.size() || pos_ >= end)
      return false;
    if (!first)
      out += ", ";
    first = false;
    if (!(this->*item)(out))
      return false;
  }
  return true;
}

bool DlangReader::parameter(std::string& out) {
  if (consume('M'))
    out += "scope ";
  if (peek() == 'N' && peek(1) == 'k') {
    pos_ += 2;
    out += "return ";
  }
  if (consume('I'))
    out += "in ";
  if (consume('J'))
    out += "out ";
  else if (consume('K'))
    out += "ref ";
  else if (consume('L'))
    out += "lazy ";
  return type(out);
}

bool DlangReader::functionType(std::string& out, char convention, const char* kind) {
  switch (convention) {
  case 'U':
    out += "extern(C) ";
    break;
  case 'W':
    out += "extern(Windows) ";
    break;
  case 'V':
    out += "extern(Pascal) ";
    break;
  case 'R':
    out += "extern(C++) ";
    break;
  case 'Y':
    out += "extern(Objective-C) ";
    break;
  default:
    break;
  }
  std::string attributes;
  std::string params;
  if (!functionAttributes(&attributes) || !parameters(params))
    return false;
  if (!type(out)) // the return type
    return false;
  out += params;
  out += attributes;
  out += ' ';
  out += kind;
  return true;
}

bool DlangReader::delegateFunction(std::string& out) {
  Depth depth(depth_);
  if (!depth.ok())
    return false;
  if (peek() == 'Q')
    return atBackReference([&] { return delegateFunction(out); });
  if (!isCallConvention(peek()))
    return false;
  char convention = text_[pos_++];
  return functionType(out, convention, "delegate");
}

bool DlangReader::wrapped(std::string& out, const char* word) {
  out += word;
  out += '(';
  if (!type(out))
    return false;
  out += ')';
  return true;
}

bool DlangReader::type(std::string& out) {
  Depth depth(depth_);
  if (!depth.ok() || pos_ >= text_.size())
    return false;
  static constexpr std::pair<char, const char*> kBasic[] = {
      {'v', "void"},   {'g', "byte"},    {'h', "ubyte"},       {'s', "short"},   {'t', "ushort"},
      {'i', "int"},    {'k', "uint"},    {'l', "long"},        {'m', "ulong"},   {'f', "float"},
      {'d', "double"}, {'e', "real"},    {'o', "ifloat"},      {'p', "idouble"}, {'j', "ireal"},
      {'q', "cfloat"}, {'r', "cdouble"}, {'c', "creal"},       {'b', "bool"},    {'a', "char"},
      {'u', "wchar"},  {'w', "dchar"},   {'n', "typeof(null)"}};
  char c = text_[pos_];
  for (const auto& [letter, name] : kBasic) {
    if (c == letter) {
      ++pos_;
      out += name;
      return true;
    }
  }
  switch (c) {
  case 'x':
    ++pos_;
    return wrapped(out, "const");
  case 'y':
    ++pos_;
    return wrapped(out, "immutable");
  case 'O':
    ++pos_;
    return wrapped(out, "shared");
  case 'N':
    switch (peek(1)) {
    case 'g':
      pos_ += 2;
      return wrapped(out, "inout");
    case 'h':
      pos_ += 2;
      return wrapped(out, "__vector");
    case 'n':
      pos_ += 2;
      out += "noreturn";
      return true;
    default:
      return false;
    }
  case 'z':
    if (peek(1) == 'i' || peek(1) == 'k') {
      out += peek(1) == 'i' ? "cent" : "ucent";
      pos_ += 2;
      return true;
    }
    return false;
  case 'A':
    ++pos_;
    if (!type(out))
      return false;
    out += "[]";
    return true;
  case 'G': {
    ++pos_;
    size_t start = pos_;
    uint64_t length = 0;
    if (!number(length))
      return false;
    std::string_view digits = text_.substr(start, pos_ - start);
    if (!type(out))
      return false;
    out += '[';
    out += digits;
    out += ']';
    return true;
  }
  case 'H': {
    ++pos_;
    std::string key;
    if (!type(key) || !type(out))
      return false;
    out += '[' + key + ']';
    return true;
  }
  case 'P':
    ++pos_;
    if (isCallConvention(peek())) {
      char convention = text_[pos_++];
      return functionType(out, convention, "function");
    }
    if (!type(out))
      return false;
    out += '*';
    return true;
  case 'F':
  case 'U':
  case 'W':
  case 'V':
  case 'R':
  case 'Y': {
    char convention = text_[pos_++];
    return functionType(out, convention, "function");
  }
  case 'D': {
    ++pos_;
    std::string modifiers;
    if (!typeModifiers(modifiers))
      return false;
    if (!delegateFunction(out))
      return false;
    if (!modifiers.empty())
      out += ' ' + modifiers;
    return true;
  }
  case 'C':
  case 'S':
  case 'E':
  case 'T':
  case 'I':
    ++pos_;
    return qualifiedName(out, /*top_level=*/false);
  case 'B': {
    ++pos_;
    uint64_t count = 0;
    if (!number(count))
      return false;
    out += "tuple(";
    for (uint64_t i = 0; i < count; ++i) {
      if (i > 0)
        out += ", ";
      if (!parameter(out))
        return false;
    }
    out += ')';
    return true;
  }
  case 'Q':
    return atBackReference([&] { return type(out); });
  default:
    return false;
  }
}

} // namespace dumpsyms::dlang
