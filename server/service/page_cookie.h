// The cookie that carries a private server's download token from page to
// page: a person opens /?key=TOKEN once, the answer sets the cookie, and
// the links the pages print (which carry no key) work after it. HttpOnly
// (no script reads it), SameSite=Strict (no other site's page sends it).
// Reads take it (the pages and the files they link to); uploads never do.
#pragma once

#include "server/http/http_server.h"

#include <optional>
#include <string>

namespace dumpsyms {

inline constexpr const char* kPageCookieName = "symstore-key";

// The Set-Cookie value for `token`; none when the token holds a byte a
// cookie value cannot (then the person keeps ?key= in the address).
std::optional<std::string> pageCookie(const std::string& token);

// The token the request's Cookie header carries, if any.
std::optional<std::string> pageCookieToken(const ServerRequest& request);

} // namespace dumpsyms
