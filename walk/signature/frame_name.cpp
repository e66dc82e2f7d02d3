#include "walk/signature/frame_name.h"

#include <cctype>
#include <cstdio>

namespace dumpsyms {
namespace {

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void trimSpaces(std::string& text) {
  size_t begin = text.find_first_not_of(" \t");
  size_t end = text.find_last_not_of(" \t");
  text = begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// GCC's outlined parts and specializations: " [clone .cold]",
// " [clone .constprop.0] [clone .isra.0]".
void dropCloneSuffixes(std::string& name) {
  while (endsWith(name, "]")) {
    size_t clone = name.rfind(" [clone ");
    if (clone == std::string::npos)
      break;
    name.erase(clone);
  }
}

// Rust's legacy mangling ends each path with "::h" and 16 hex digits.
void dropRustHash(std::string& name) {
  if (name.size() < 19 || name.compare(name.size() - 19, 3, "::h") != 0)
    return;
  for (size_t i = name.size() - 16; i < name.size(); ++i)
    if (!std::isxdigit(static_cast<unsigned char>(name[i])))
      return;
  name.erase(name.size() - 19);
}

// What follows a member function's parameter list.
void dropQualifiers(std::string& name) {
  static const char* const kQualifiers[] = {" const", " volatile", " &&",       " &",         "&&",
                                            "&",      " noexcept", " restrict", " __restrict"};
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (const char* qualifier : kQualifiers)
      if (endsWith(name, qualifier) && name.size() > std::string(qualifier).size() &&
          (name[name.size() - std::string(qualifier).size() - 1] == ')' || qualifier[0] == ' ')) {
        name.erase(name.size() - std::string(qualifier).size());
        trimSpaces(name);
        dropped = true;
      }
  }
}

// The parameter list: the parenthesized group the name ends with.
void dropParameters(std::string& name) {
  if (!endsWith(name, ")"))
    return;
  int depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')')
      ++depth;
    else if (name[i] == '(' && --depth == 0) {
      // "(anonymous namespace)" alone is a name, not a parameter list.
      if (i == 0)
        return;
      name.erase(i);
      trimSpaces(name);
      return;
    }
  }
}

// The length of the operator's symbol at `at` ("<<=", "->", "()"), or of
// "operator" plus it; 0 when `at` does not start the word "operator".
size_t operatorLength(const std::string& name, size_t at) {
  static const std::string kWord = "operator";
  if (name.compare(at, kWord.size(), kWord) != 0 || (at > 0 && isIdentifierChar(name[at - 1])))
    return 0;
  size_t end = at + kWord.size();
  if (end < name.size() && isIdentifierChar(name[end]))
    return 0; // "operators", "operator_x"
  static const char* const kSymbols[] = {"<=>", "<<=", ">>=", "->*", "()", "[]", "<<",
                                         ">>",  "<=",  ">=",  "->",  "<",  ">"};
  for (const char* symbol : kSymbols)
    if (name.compare(end, std::string(symbol).size(), symbol) == 0)
      return end + std::string(symbol).size() - at;
  return end - at;
}

// Every outermost template argument list becomes "<T>".
std::string collapseTemplateArguments(const std::string& name) {
  std::string out;
  out.reserve(name.size());
  for (size_t i = 0; i < name.size();) {
    if (size_t length = operatorLength(name, i)) {
      out.append(name, i, length);
      i += length;
      continue;
    }
    if (name[i] != '<') {
      out += name[i++];
      continue;
    }
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t j = i; j < name.size(); ++j) {
      if (size_t length = operatorLength(name, j)) {
        j += length - 1;
        continue;
      }
      if (name[j] == '<')
        ++depth;
      else if (name[j] == '>' && --depth == 0) {
        close = j;
        break;
      }
    }
    if (close == std::string::npos) { // unbalanced: kept as it is
      out.append(name, i, std::string::npos);
      break;
    }
    out += "<T>";
    i = close + 1;
  }
  return out;
}

// "int ns::f" -> "ns::f": the last space outside brackets, before any
// "operator" (whose own spelling may hold spaces: "operator new[]",
// "operator unsigned int").
void dropReturnType(std::string& name) {
  int depth = 0;
  size_t cut = std::string::npos;
  for (size_t i = 0; i < name.size(); ++i) {
    if (depth == 0 && operatorLength(name, i))
      break;
    char c = name[i];
    if (c == '<' || c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == ' ' && depth == 0)
      cut = i;
  }
  if (cut != std::string::npos)
    name.erase(0, cut + 1);
}

// clang's lambdas "$_12" -> "$": their numbers change from build to build.
std::string dropLambdaNumbers(const std::string& name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    out += name[i];
    if (name[i] == '$' && i + 2 < name.size() && name[i + 1] == '_' &&
        std::isdigit(static_cast<unsigned char>(name[i + 2]))) {
      i += 2;
      while (i + 1 < name.size() && std::isdigit(static_cast<unsigned char>(name[i + 1])))
        ++i;
    }
  }
  return out;
}

void collapseSpaces(std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '\t' || c == '\n' || c == '\r')
      c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' '))
      continue;
    out += c;
  }
  name = std::move(out);
  trimSpaces(name);
}

std::string hexOf(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

} // namespace

std::string normalizeFunctionName(const std::string& function) {
  std::string name = function;
  collapseSpaces(name);
  dropCloneSuffixes(name);
  dropRustHash(name);
  dropQualifiers(name);
  dropParameters(name);
  name = collapseTemplateArguments(name);
  dropReturnType(name);
  name = dropLambdaNumbers(name);
  collapseSpaces(name);
  return name.empty() ? function : name;
}

std::string signatureFrameName(const SignatureFrame& frame) {
  if (!frame.function.empty())
    return normalizeFunctionName(frame.function);
  if (!frame.module.empty() && frame.offset)
    return frame.module + "@" + hexOf(*frame.offset);
  return "@" + hexOf(frame.address);
}

} // namespace dumpsyms
