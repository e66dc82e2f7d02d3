#include "server/service/page_cookie.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {
namespace {

// RFC 6265's cookie-octet: printable ASCII but space, '"', ',', ';' and '\'.
bool isCookieValue(llvm::StringRef value) {
  if (value.empty() || value.size() > 512)
    return false;
  for (char c : value)
    if (c <= 0x20 || c >= 0x7F || c == '"' || c == ',' || c == ';' || c == '\\')
      return false;
  return true;
}

} // namespace

std::optional<std::string> pageCookie(const std::string& token) {
  if (!isCookieValue(token))
    return std::nullopt;
  return std::string(kPageCookieName) + "=" + token + "; Path=/; HttpOnly; SameSite=Strict";
}

std::optional<std::string> pageCookieToken(const ServerRequest& request) {
  auto header = request.headers.find("cookie");
  if (header == request.headers.end())
    return std::nullopt;
  llvm::StringRef rest = header->second;
  while (!rest.empty()) {
    auto [pair, next] = rest.split(';');
    rest = next;
    auto [name, value] = pair.trim().split('=');
    if (name.trim() == kPageCookieName && isCookieValue(value.trim()))
      return value.trim().str();
  }
  return std::nullopt;
}

} // namespace dumpsyms
