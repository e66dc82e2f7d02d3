// DlangReader (dlang_reader.h): template arguments and the values they carry (integers, reals,
// strings, array and struct literals).
#include "dump/object/dlang_reader.h"

namespace dumpsyms::dlang {

bool DlangReader::templateArgument(std::string& out) {
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

char DlangReader::typeKind(size_t at) const {
  for (int hops = 0; hops < kMaxDepth && at < text_.size(); ++hops) {
    char c = text_[at];
    if (c == 'x' || c == 'y' || c == 'O') {
      ++at;
      continue;
    }
    if (c != 'Q')
      return c;
    DlangReader probe = *this;
    probe.pos_ = at + 1;
    size_t target = 0;
    if (!probe.backReferenceTarget(at, target))
      return '\0';
    at = target;
  }
  return '\0';
}

bool DlangReader::value(std::string& out, char kind, const std::string& type_name) {
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

bool DlangReader::values(std::string& out, char sep) {
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

bool DlangReader::integer(std::string& out, char kind, bool negative) {
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

bool DlangReader::real(std::string& out) {
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

bool DlangReader::string(std::string& out) {
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

} // namespace dumpsyms::dlang
