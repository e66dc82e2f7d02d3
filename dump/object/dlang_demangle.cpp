#include "dump/object/dlang_demangle.h"

#include <cstdint>
#include <string_view>

namespace dumpsyms {

namespace {

constexpr int kMaxDepth = 64; // nesting of types and back references

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

// A recursive-descent reader of one mangled name. Every parse function
// returns false on what it cannot read; the caller then gives up on the
// whole name (a half-read name would be a wrong one).
class Reader {
public:
  explicit Reader(std::string_view mangled) : text_(mangled) {}

  bool mangledName(std::string& out) {
    if (!consume("_D"))
      return false;
    if (!qualifiedName(out, /*top_level=*/true))
      return false;
    // Artificial symbols end with `Z` and have no type; the rest end with
    // their type (a function's return type), which the name leaves out.
    if (consume('Z'))
      return true;
    std::string ignored;
    return type(ignored);
  }

  bool atEnd() const { return pos_ == text_.size(); }

private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  bool consume(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s)
      return false;
    pos_ += s.size();
    return true;
  }

  // RAII depth guard against deep or cyclic back references.
  struct Depth {
    explicit Depth(int& depth) : depth_(depth) { ++depth_; }
    ~Depth() { --depth_; }
    bool ok() const { return depth_ <= kMaxDepth; }
    int& depth_;
  };

  bool number(uint64_t& value) {
    if (!isDigit(peek()))
      return false;
    value = 0;
    while (isDigit(peek())) {
      if (value > (UINT64_MAX - 9) / 10)
        return false;
      value = value * 10 + static_cast<uint64_t>(text_[pos_++] - '0');
    }
    return true;
  }

  // A back reference's distance: base 26, upper-case letters go on,
  // a lower-case letter ends it.
  bool backReferenceTarget(size_t q_position, size_t& target) {
    uint64_t value = 0;
    while (isUpper(peek())) {
      value = value * 26 + static_cast<uint64_t>(text_[pos_++] - 'A');
      if (value > text_.size())
        return false;
    }
    if (!isLower(peek()))
      return false;
    value = value * 26 + static_cast<uint64_t>(text_[pos_++] - 'a');
    if (value == 0 || value > q_position)
      return false;
    target = q_position - value;
    return true;
  }

  // Whether a symbol name starts here (as opposed to a type): a length, a
  // template instance, or a back reference to an identifier (whose target
  // starts with a length).
  bool atSymbolName() const {
    char c = peek();
    if (isDigit(c))
      return true;
    if (c == '_' && peek(1) == '_' && (peek(2) == 'T' || peek(2) == 'U'))
      return true;
    if (c != 'Q')
      return false;
    Reader probe = *this;
    size_t q = probe.pos_++;
    size_t target = 0;
    return probe.backReferenceTarget(q, target) && isDigit(text_[target]);
  }

  bool identifier(std::string& out, std::string_view name) {
    if (name == "__ctor")
      out += "this";
    else if (name == "__dtor")
      out += "~this";
    else
      out += name;
    return true;
  }

  // `Q` and the distance back to an LName seen before.
  bool identifierBackReference(std::string& out) {
    size_t q = pos_++;
    size_t target = 0;
    if (!backReferenceTarget(q, target))
      return false;
    size_t resume = pos_;
    pos_ = target;
    uint64_t length = 0;
    if (!number(length) || length > text_.size() - pos_)
      return false;
    bool ok = identifier(out, text_.substr(pos_, length));
    pos_ = resume;
    return ok;
  }

  // SymbolName: LName | TemplateInstanceName | IdentifierBackRef | 0.
  bool symbolName(std::string& out) {
    Depth depth(depth_);
    if (!depth.ok())
      return false;
    if (consume("__T") || consume("__U"))
      return templateInstance(out, std::string_view::npos);
    if (peek() == 'Q')
      return identifierBackReference(out);
    uint64_t length = 0;
    if (!number(length))
      return false;
    if (length == 0) // an anonymous symbol
      return true;
    if (length > text_.size() - pos_)
      return false;
    size_t end = pos_ + length;
    // The old spelling: a template instance inside a length.
    if (text_.substr(pos_, 3) == "__T" || text_.substr(pos_, 3) == "__U") {
      pos_ += 3;
      return templateInstance(out, end) && pos_ == end;
    }
    std::string_view name = text_.substr(pos_, length);
    pos_ = end;
    if (name == "__postblit" && consume("MFZ")) { // a plain postblit
      out += "this(this)";
      return true;
    }
    return identifier(out, name);
  }

  // `__T` LName TemplateArgs `Z`, printed `name!(args)`.
  bool templateInstance(std::string& out, size_t end) {
    if (peek() == 'Q') {
      if (!identifierBackReference(out))
        return false;
    } else {
      uint64_t length = 0;
      if (!number(length) || length == 0 || length > text_.size() - pos_)
        return false;
      if (!identifier(out, text_.substr(pos_, length)))
        return false;
      pos_ += length;
    }
    out += "!(";
    bool first = true;
    while (!consume('Z')) {
      if (pos_ >= text_.size() || pos_ >= end)
        return false;
      if (!first)
        out += ", ";
      first = false;
      if (!templateArgument(out))
        return false;
    }
    out += ')';
    return true;
  }

  bool templateArgument(std::string& out) {
    // `H`: an argument that matched a specialization.
    consume('H');
    switch (peek()) {
    case 'T':
      ++pos_;
      return type(out);
    case 'V': {
      ++pos_;
      size_t type_start = pos_;
      std::string ignored;
      if (!type(ignored))
        return false;
      return value(out, typeKind(type_start), ignored);
    }
    case 'S': {
      ++pos_;
      // A symbol: a whole mangled name (its type, a function's return
      // type, left out), or a qualified name.
      if (consume("_D")) {
        if (!qualifiedName(out, /*top_level=*/true))
          return false;
        std::string ignored;
        return type(ignored);
      }
      if (atSymbolName())
        return qualifiedName(out, /*top_level=*/false);
      return false;
    }
    case 'X': {
      ++pos_;
      uint64_t length = 0;
      if (!number(length) || length > text_.size() - pos_)
        return false;
      out += text_.substr(pos_, length);
      pos_ += length;
      return true;
    }
    default:
      return false;
    }
  }

  // The type letter a value's spelling depends on: the first of its type
  // after modifiers, following a back reference.
  char typeKind(size_t at) const {
    for (int hops = 0; hops < kMaxDepth && at < text_.size(); ++hops) {
      char c = text_[at];
      if (c == 'x' || c == 'y' || c == 'O') {
        ++at;
        continue;
      }
      if (c != 'Q')
        return c;
      Reader probe = *this;
      probe.pos_ = at + 1;
      size_t target = 0;
      if (!probe.backReferenceTarget(at, target))
        return '\0';
      at = target;
    }
    return '\0';
  }

  bool value(std::string& out, char kind, const std::string& type_name) {
    Depth depth(depth_); // array literals nest
    if (!depth.ok())
      return false;
    switch (peek()) {
    case 'n':
      ++pos_;
      out += "null";
      return true;
    case 'i':
      ++pos_;
      [[fallthrough]];
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      return integer(out, kind, false);
    case 'N':
      ++pos_;
      return integer(out, kind, true);
    case 'e':
      ++pos_;
      return real(out);
    case 'c':
      ++pos_;
      if (!real(out))
        return false;
      out += '+';
      if (!consume('c') || !real(out))
        return false;
      out += 'i';
      return true;
    case 'a':
    case 'w':
    case 'd':
      ++pos_;
      return string(out);
    case 'A': {
      ++pos_;
      out += '[';
      if (!values(out, kind == 'H' ? ':' : ','))
        return false;
      out += ']';
      return true;
    }
    case 'S':
      ++pos_;
      out += type_name;
      out += '(';
      if (!values(out, ','))
        return false;
      out += ')';
      return true;
    default:
      return false;
    }
  }

  // `Number` values of an array or structure literal, `sep`-separated; an
  // associative array's come in key, value pairs.
  bool values(std::string& out, char sep) {
    uint64_t count = 0;
    if (!number(count))
      return false;
    if (sep == ':')
      count *= 2;
    for (uint64_t i = 0; i < count; ++i) {
      if (i > 0)
        out += (sep == ':' && i % 2 == 1) ? ":" : ", ";
      if (pos_ >= text_.size())
        return false;
      char kind = '\0';
      if (peek() == 'V') // the old spelling types each element
        ++pos_;
      std::string nested_type;
      if (!value(out, kind, nested_type))
        return false;
    }
    return true;
  }

  bool integer(std::string& out, char kind, bool negative) {
    size_t start = pos_;
    uint64_t n = 0;
    if (!number(n))
      return false;
    std::string_view digits = text_.substr(start, pos_ - start);
    switch (kind) {
    case 'a':
    case 'u':
    case 'w': { // character literals
      if (negative)
        return false;
      if (n >= 0x20 && n < 0x7f) {
        out += '\'';
        out += static_cast<char>(n);
        out += '\'';
      } else {
        static const char kHex[] = "0123456789abcdef";
        int width = kind == 'a' ? 2 : kind == 'u' ? 4 : 8;
        out += kind == 'a' ? "'\\x" : kind == 'u' ? "'\\u" : "'\\U";
        for (int i = width - 1; i >= 0; --i)
          out += kHex[(n >> (4 * i)) & 0xf];
        out += '\'';
      }
      return true;
    }
    case 'b':
      if (negative || n > 1)
        return false;
      out += n ? "true" : "false";
      return true;
    default:
      break;
    }
    if (negative)
      out += '-';
    out += digits;
    switch (kind) {
    case 'h':
    case 't':
    case 'k':
      out += 'u';
      break;
    case 'l':
      out += 'L';
      break;
    case 'm':
      out += "uL";
      break;
    default:
      break;
    }
    return true;
  }

  // A floating-point value: `INF`, `NINF`, `NAN` or [N]hex digits `P` [N]exponent.
  bool real(std::string& out) {
    if (consume("INF")) {
      out += "inf";
      return true;
    }
    if (consume("NINF")) {
      out += "-inf";
      return true;
    }
    if (consume("NAN")) {
      out += "nan";
      return true;
    }
    if (consume('N'))
      out += '-';
    out += "0x";
    auto isHex = [](char c) { return isDigit(c) || (c >= 'A' && c <= 'F'); };
    if (!isHex(peek()))
      return false;
    out += text_[pos_++];
    out += '.';
    while (isHex(peek()))
      out += text_[pos_++];
    if (!consume('P'))
      return false;
    out += 'p';
    if (consume('N'))
      out += '-';
    if (!isDigit(peek()))
      return false;
    while (isDigit(peek()))
      out += text_[pos_++];
    return true;
  }

  // Number `_` hex digits: a string literal, printed quoted.
  bool string(std::string& out) {
    uint64_t length = 0;
    if (!number(length) || !consume('_') || length > (text_.size() - pos_) / 2)
      return false;
    out += '"';
    for (uint64_t i = 0; i < length; ++i) {
      int byte = 0;
      for (int half = 0; half < 2; ++half) {
        char c = text_[pos_++];
        int digit = isDigit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
        if (digit < 0)
          return false;
        byte = byte * 16 + digit;
      }
      switch (byte) {
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\a':
        out += "\\a";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\v':
        out += "\\v";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          static const char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xf];
        } else {
          out += static_cast<char>(byte);
        }
      }
    }
    out += '"';
    return true;
  }

  // QualifiedName: symbol names joined by `.`; an element that is a function
  // (the scope of what follows, or the symbol itself at the top level)
  // carries its parameters, and a method its `this` modifiers.
  bool qualifiedName(std::string& out, bool top_level) {
    Depth depth(depth_);
    if (!depth.ok())
      return false;
    bool first = true;
    do {
      if (!first)
        out += '.';
      first = false;
      if (!symbolName(out))
        return false;
      if (peek() != 'M' && !isCallConvention(peek()))
        continue;
      size_t saved_pos = pos_;
      size_t saved_size = out.size();
      std::string modifiers;
      bool ok = true;
      if (consume('M'))
        ok = typeModifiers(modifiers) && isCallConvention(peek());
      if (ok) {
        ++pos_; // the calling convention
        ok = functionAttributes(nullptr) && parameters(out);
      }
      if (ok && (top_level || atSymbolName())) {
        // Only the symbol's own name shows `this` modifiers.
        if (!modifiers.empty() && top_level)
          out += ' ' + modifiers;
      } else {
        pos_ = saved_pos;
        out.resize(saved_size);
        break;
      }
    } while (atSymbolName());
    return true;
  }

  static bool isCallConvention(char c) {
    return c == 'F' || c == 'U' || c == 'W' || c == 'V' || c == 'R' || c == 'Y';
  }

  // The `this` modifiers of a method: x const, y immutable, O shared,
  // Ng inout, as the suffix GNU's tools print them.
  bool typeModifiers(std::string& out) {
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

  // Na pure, Nb nothrow, ...: read; printed only for function types
  // inside a name (`out` non-null).
  bool functionAttributes(std::string* out) {
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

  // Parameters and the closing `X`/`Y`/`Z`, printed `(...)`.
  bool parameters(std::string& out) {
    out += '(';
    bool first = true;
    while (true) {
      if (consume('Z'))
        break;
      if (consume('X')) { // T t...
        out += "...";
        break;
      }
      if (consume('Y')) { // C-style variadic
        out += first ? "..." : ", ...";
        break;
      }
      if (pos_ >= text_.size())
        return false;
      if (!first)
        out += ", ";
      first = false;
      if (!parameter(out))
        return false;
    }
    out += ')';
    return true;
  }

  bool parameter(std::string& out) {
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

  // A function type (after its calling convention letter): `R(P) attrs`,
  // then `kind` (function, delegate).
  bool functionType(std::string& out, char convention, const char* kind) {
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

  // A delegate's function type, written out or referred back to.
  bool delegateFunction(std::string& out) {
    Depth depth(depth_);
    if (!depth.ok())
      return false;
    if (peek() == 'Q') {
      size_t q = pos_++;
      size_t target = 0;
      if (!backReferenceTarget(q, target))
        return false;
      size_t resume = pos_;
      pos_ = target;
      bool ok = delegateFunction(out);
      pos_ = resume;
      return ok;
    }
    if (!isCallConvention(peek()))
      return false;
    char convention = text_[pos_++];
    return functionType(out, convention, "delegate");
  }

  bool wrapped(std::string& out, const char* word) {
    out += word;
    out += '(';
    if (!type(out))
      return false;
    out += ')';
    return true;
  }

  bool type(std::string& out) {
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
    case 'Q': {
      size_t q = pos_++;
      size_t target = 0;
      if (!backReferenceTarget(q, target))
        return false;
      size_t resume = pos_;
      pos_ = target;
      bool ok = type(out);
      pos_ = resume;
      return ok;
    }
    default:
      return false;
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

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
    Reader reader(scope);
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
  Reader reader(name);
  std::string out;
  if (!reader.mangledName(out) || !reader.atEnd())
    return std::nullopt;
  return out;
}

} // namespace dumpsyms
