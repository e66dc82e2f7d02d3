// The reader behind demangleDlang (dlang_demangle.h): a recursive-descent
// reader of one mangled D name (the D ABI's grammar), its parts defined by
// job in dlang_names.cpp (symbols, qualified names, templates),
// dlang_values.cpp (template arguments and values) and dlang_types.cpp
// (types and function types).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dumpsyms::dlang {

inline constexpr int kMaxDepth = 64; // nesting of types and back references

inline bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
inline bool isLower(char c) {
  return c >= 'a' && c <= 'z';
}
inline bool isUpper(char c) {
  return c >= 'A' && c <= 'Z';
}

// A recursive-descent reader of one mangled name. Every parse function
// returns false on what it cannot read; the caller then gives up on the
// whole name (a half-read name would be a wrong one).
class DlangReader {
public:
  explicit DlangReader(std::string_view mangled) : text_(mangled) {}
  bool mangledName(std::string& out);
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
  bool number(uint64_t& value);
  // A back reference's distance: base 26, upper-case letters go on,
  // a lower-case letter ends it.
  bool backReferenceTarget(size_t q_position, size_t& target);
  // Whether a symbol name starts here (as opposed to a type): a length, a
  // template instance, or a back reference to an identifier (whose target
  // starts with a length).
  bool atSymbolName() const;
  bool identifier(std::string& out, std::string_view name);
  // `Q` and the distance back to an LName seen before.
  bool identifierBackReference(std::string& out);
  // SymbolName: LName | TemplateInstanceName | IdentifierBackRef | 0.
  bool symbolName(std::string& out);
  // `__T` LName TemplateArgs `Z`, printed `name!(args)`.
  bool templateInstance(std::string& out, size_t end);
  bool templateArgument(std::string& out);
  // The type letter a value's spelling depends on: the first of its type
  // after modifiers, following a back reference.
  char typeKind(size_t at) const;
  bool value(std::string& out, char kind, const std::string& type_name);
  // `Number` values of an array or structure literal, `sep`-separated; an
  // associative array's come in key, value pairs.
  bool values(std::string& out, char sep);
  bool integer(std::string& out, char kind, bool negative);
  // A floating-point value: `INF`, `NINF`, `NAN` or [N]hex digits `P` [N]exponent.
  bool real(std::string& out);
  // Number `_` hex digits: a string literal, printed quoted.
  bool string(std::string& out);
  // QualifiedName: symbol names joined by `.`; an element that is a function
  // (the scope of what follows, or the symbol itself at the top level)
  // carries its parameters, and a method its `this` modifiers.
  bool qualifiedName(std::string& out, bool top_level);
  static bool isCallConvention(char c);
  // The `this` modifiers of a method: x const, y immutable, O shared,
  // Ng inout, as the suffix GNU's tools print them.
  bool typeModifiers(std::string& out);
  // Na pure, Nb nothrow, ...: read; printed only for function types
  // inside a name (`out` non-null).
  bool functionAttributes(std::string* out);
  // Parameters and the closing `X`/`Y`/`Z`, printed `(...)`.
  bool parameters(std::string& out);
  // Items read by `item`, ", "-separated, up to and past the `Z` that ends
  // them, before `end`; with `variadic` (parameters) `X` and `Y` end them
  // too, printed as D and C variadics.
  bool separated(std::string& out, bool (DlangReader::*item)(std::string&), size_t end,
                 bool variadic);
  // `Q` and a distance back: what stands there, read by `parse`; the
  // reading goes on after the reference.
  template <typename Parse> bool atBackReference(Parse parse) {
    size_t q = pos_++;
    size_t target = 0;
    if (!backReferenceTarget(q, target))
      return false;
    size_t resume = pos_;
    pos_ = target;
    bool ok = parse();
    pos_ = resume;
    return ok;
  }
  bool parameter(std::string& out);
  // A function type (after its calling convention letter): `R(P) attrs`,
  // then `kind` (function, delegate).
  bool functionType(std::string& out, char convention, const char* kind);
  // A delegate's function type, written out or referred back to.
  bool delegateFunction(std::string& out);
  bool wrapped(std::string& out, const char* word);
  bool type(std::string& out);
  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace dumpsyms::dlang
