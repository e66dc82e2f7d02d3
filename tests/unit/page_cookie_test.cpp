// The cookie that carries a private server's download token between pages.
#include "server/service/page_cookie.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(PageCookie, SetForTokensACookieCanHold) {
  EXPECT_EQ(pageCookie("ab+/=c"), "symstore-key=ab+/=c; Path=/; HttpOnly; SameSite=Strict");
  EXPECT_FALSE(pageCookie("a;b"));
  EXPECT_FALSE(pageCookie("a b"));
  EXPECT_FALSE(pageCookie("a\"b"));
  EXPECT_FALSE(pageCookie(""));
  EXPECT_FALSE(pageCookie(std::string(600, 'a')));
}

TEST(PageCookie, ReadFromTheCookieHeaderAmongOthers) {
  ServerRequest request;
  EXPECT_FALSE(pageCookieToken(request));
  request.headers["cookie"] = "theme=dark; symstore-key=tok-1 ; other=x";
  EXPECT_EQ(pageCookieToken(request), "tok-1");
  request.headers["cookie"] = "symstore-keyx=tok; xsymstore-key=tok";
  EXPECT_FALSE(pageCookieToken(request));
  request.headers["cookie"] = "symstore-key=\"quoted\"";
  EXPECT_FALSE(pageCookieToken(request));
}

} // namespace
} // namespace dumpsyms
