// DlangReader (dlang_reader.h): mangled names, symbol and qualified names, identifiers, back
// references and template instances.
#include "dump/object/dlang_reader.h"

namespace dumpsyms::dlang {

bool DlangReader::mangledName(std::string& out) {
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

bool DlangReader::number(uint64_t& value) {
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

bool DlangReader::backReferenceTarget(size_t q_position, size_t& target) {
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

bool DlangReader::atSymbolName() const {
  char c = peek();
  if (isDigit(c))
    return true;
  if (c == '_' && peek(1) == '_' && (peek(2) == 'T' || peek(2) == 'U'))
    return true;
  if (c != 'Q')
    return false;
  DlangReader probe = *this;
  size_t q = probe.pos_++;
  size_t target = 0;
  return probe.backReferenceTarget(q, target) && isDigit(text_[target]);
}

bool DlangReader::identifier(std::string& out, std::string_view name) {
  if (name == "__ctor")
    out += "this";
  else if (name == "__dtor")
    out += "~this";
  else
    out += name;
  return true;
}

bool DlangReader::identifierBackReference(std::string& out) {
  return atBackReference([&] {
    uint64_t length = 0;
    if (!number(length) || length > text_.size() - pos_)
      return false;
    return identifier(out, text_.substr(pos_, length));
  });
}

bool DlangReader::symbolName(std::string& out) {
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

bool DlangReader::templateInstance(std::string& out, size_t end) {
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
  if (!separated(out, &DlangReader::templateArgument, end, /*variadic=*/false))
    return false;
  out += ')';
  return true;
}

bool DlangReader::qualifiedName(std::string& out, bool top_level) {
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

} // namespace dumpsyms::dlang
