// symstore serve --tokens: the file format of the issue's contract, and
// where a request's token is read from.
#include "server/service/serve_command.h"
#include "server/service/tokens.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TokenSet parsed(const std::string& text) {
  auto set = TokenSet::parse(text, "tokens.txt");
  EXPECT_TRUE(static_cast<bool>(set)) << (set ? "" : llvm::toString(set.takeError()));
  return set ? std::move(*set) : TokenSet();
}

std::string parseError(const std::string& text) {
  auto set = TokenSet::parse(text, "tokens.txt");
  if (set)
    return "";
  return llvm::toString(set.takeError());
}

TEST(ServeTokens, PermissionsOfEachForm) {
  TokenSet set = parsed("up upload\n"
                        "down download\n"
                        "both upload download\n"
                        "both2   download\tupload  \n");
  EXPECT_EQ(set.size(), 4u);
  EXPECT_EQ(set.permissions("up"), unsigned(kPermissionUpload));
  EXPECT_EQ(set.permissions("down"), unsigned(kPermissionDownload));
  EXPECT_EQ(set.permissions("both"), unsigned(kPermissionUpload | kPermissionDownload));
  EXPECT_EQ(set.permissions("both2"), unsigned(kPermissionUpload | kPermissionDownload));
}

TEST(ServeTokens, UnknownTokensHaveNoPermission) {
  TokenSet set = parsed("secret upload download\n");
  EXPECT_EQ(set.permissions("Secret"), 0u);
  EXPECT_EQ(set.permissions("secre"), 0u);
  EXPECT_EQ(set.permissions("secret "), 0u);
  EXPECT_EQ(set.permissions("secretsecret"), 0u);
  EXPECT_EQ(set.permissions(""), 0u);
  EXPECT_EQ(parsed("").permissions("secret"), 0u);
}

TEST(ServeTokens, CommentsAndBlankLines) {
  TokenSet set = parsed("# the release team\n"
                        "\n"
                        "   \n"
                        "ci upload # the CI's token\n"
                        "  # indented comment\n"
                        "reader download #upload\r\n");
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.permissions("ci"), unsigned(kPermissionUpload));
  EXPECT_EQ(set.permissions("reader"), unsigned(kPermissionDownload)); // #upload is a comment
  EXPECT_EQ(set.permissions("#"), 0u);
}

TEST(ServeTokens, ARepeatedTokenGetsBothLinesPermissions) {
  TokenSet set = parsed("t upload\nt download\n");
  EXPECT_EQ(set.size(), 1u);
  EXPECT_EQ(set.permissions("t"), unsigned(kPermissionUpload | kPermissionDownload));
}

TEST(ServeTokens, BadLinesNameFileAndLine) {
  EXPECT_EQ(parseError("ok upload\nlonely\n"),
            "tokens.txt:2: a token without permissions (add upload, download, submit or crashes)");
  EXPECT_EQ(
      parseError("# c\n\nt upload write\n"),
      "tokens.txt:3: unknown permission 'write' (expected upload, download, submit or crashes)");
  EXPECT_EQ(
      parseError("t Upload\n"),
      "tokens.txt:1: unknown permission 'Upload' (expected upload, download, submit or crashes)");
  EXPECT_EQ(parseError("t # upload\n"),
            "tokens.txt:1: a token without permissions (add upload, download, submit or crashes)");
}

TEST(ServeTokens, AMissingFileIsAnErrorNamingIt) {
  auto set = TokenSet::load("/nonexistent/tokens.txt");
  ASSERT_FALSE(static_cast<bool>(set));
  EXPECT_EQ(llvm::toString(set.takeError()).rfind("/nonexistent/tokens.txt: ", 0), 0u);
}

ServerRequest withHeaders(std::map<std::string, std::string> headers,
                          std::map<std::string, std::string> query = {}) {
  ServerRequest request;
  request.headers = std::move(headers);
  request.query = std::move(query);
  return request;
}

TEST(ServeTokens, WhereARequestCarriesItsToken) {
  EXPECT_EQ(requestToken(withHeaders({{"auth-token", "tecken"}})), "tecken");
  EXPECT_EQ(requestToken(withHeaders({{"authorization", "Bearer abc"}})), "abc");
  EXPECT_EQ(requestToken(withHeaders({{"authorization", "bearer  abc "}})), "abc");
  EXPECT_EQ(requestToken(withHeaders({}, {{"key", "v2key"}})), "v2key");
  // ?key=a+b/c= sent unescaped arrives as "a b/c=".
  EXPECT_EQ(requestToken(withHeaders({}, {{"key", "a b/c="}})), "a+b/c=");
  EXPECT_EQ(requestToken(withHeaders({{"auth-token", "first"}}, {{"key", "second"}})), "first");
  EXPECT_EQ(requestToken(withHeaders({{"authorization", "Basic dXNlcjpwdw=="}})), std::nullopt);
  EXPECT_EQ(requestToken(withHeaders({})), std::nullopt);
}

} // namespace
} // namespace dumpsyms

namespace dumpsyms {
namespace {

TEST(ServeSizes, BytesAloneOrWithAUnit) {
  EXPECT_EQ(parseByteSize("512"), 512u);
  EXPECT_EQ(parseByteSize("23025"), 23025u);
  EXPECT_EQ(parseByteSize("64K"), 64u << 10);
  EXPECT_EQ(parseByteSize("25M"), 25u << 20);
  EXPECT_EQ(parseByteSize("2g"), uint64_t(2) << 30);
  EXPECT_FALSE(parseByteSize(""));
  EXPECT_FALSE(parseByteSize("0"));
  EXPECT_FALSE(parseByteSize("M"));
  EXPECT_FALSE(parseByteSize("12MB"));
  EXPECT_FALSE(parseByteSize("1X"));
  EXPECT_FALSE(parseByteSize("99999999999999999999"));
}

} // namespace
} // namespace dumpsyms
