// The one gzip module (common/gzip): what it compresses inflates back, in
// one piece or many; and every way gzip data goes wrong is its own typed
// error, never a crash or an unbounded output.
#include "common/gzip/gzip.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace dumpsyms {
namespace {

// A pipe's read end holding `bytes` (they fit its buffer).
int readable(const std::string& bytes) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), ssize_t(bytes.size()));
  ::close(fds[1]);
  return fds[0];
}

// The inflated text, or the problem.
std::pair<std::string, std::optional<GunzipError::Problem>> inflate(const std::string& gzip,
                                                                    GunzipRules rules = {}) {
  int fd = readable(gzip);
  std::string out;
  llvm::Error error = gunzip(
      fd,
      [&](llvm::StringRef bytes) {
        out += bytes.str();
        return llvm::Error::success();
      },
      rules);
  ::close(fd);
  std::optional<GunzipError::Problem> problem;
  llvm::handleAllErrors(std::move(error), [&](const GunzipError& e) { problem = e.problem(); });
  return {out, problem};
}

std::string compressed(const std::string& text) {
  llvm::Expected<std::string> gz = gzipCompress(text);
  EXPECT_TRUE(bool(gz));
  return gz ? *gz : "";
}

TEST(Gzip, RoundTripsAndIsDeterministic) {
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "FUNC " + std::to_string(i) + " 10 0 function_" + std::to_string(i % 7) + "\n";
  std::string gz = compressed(text);
  EXPECT_LT(gz.size(), text.size());
  EXPECT_EQ(gz, compressed(text)); // no time or name in the header
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(uint8_t(gz[0]), 0x1f);
  EXPECT_EQ(uint8_t(gz[1]), 0x8b);
  auto [out, problem] = inflate(gz);
  EXPECT_FALSE(problem);
  EXPECT_EQ(out, text);
  EXPECT_EQ(inflate(compressed("")).first, "");
}

TEST(Gzip, MembersTruncationTrailingBytesAndCaps) {
  std::string two = compressed("one ") + compressed("two");
  EXPECT_EQ(inflate(two, {1000, /*concatenated_members=*/true}).first, "one two");
  EXPECT_EQ(inflate(two, {1000, false}).second, GunzipError::Problem::TrailingBytes);
  std::string whole = compressed(std::string(5000, 'x'));
  EXPECT_EQ(inflate(whole.substr(0, whole.size() - 6)).second, GunzipError::Problem::Truncated);
  EXPECT_EQ(inflate("").second, GunzipError::Problem::Truncated);
  EXPECT_EQ(inflate("not gzip at all").second, GunzipError::Problem::NotGzip);
  EXPECT_EQ(inflate(whole, {4999, false}).second, GunzipError::Problem::OverLimit);
  EXPECT_FALSE(inflate(whole, {5000, false}).second);
}

} // namespace
} // namespace dumpsyms
