#include "dump/flows/path_prefix_map.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(PathPrefixMap, ParsesOldEqualsNew) {
  auto mapping = parsePathPrefixMapping("/build/x=/src=y");
  ASSERT_TRUE(mapping.has_value());
  EXPECT_EQ(mapping->from, "/build/x");
  EXPECT_EQ(mapping->to, "/src=y");
  EXPECT_FALSE(parsePathPrefixMapping("no-equals").has_value());
  EXPECT_FALSE(parsePathPrefixMapping("=/empty-old").has_value());
  EXPECT_TRUE(parsePathPrefixMapping("/old=").has_value()); // NEW may be empty
}

TEST(PathPrefixMap, FirstMatchWins) {
  std::vector<PathPrefixMapping> map = {{"/b/x", "X"}, {"/b", "B"}, {"/b/x", "never"}};
  EXPECT_EQ(mapPathPrefix("/b/x/y.c", map), "X/y.c");
  EXPECT_EQ(mapPathPrefix("/b/z.c", map), "B/z.c");
  EXPECT_EQ(mapPathPrefix("/other/z.c", map), "/other/z.c");
  Module module;
  module.files = {"/b/x/a.c", "/c/d.c"};
  applyPathPrefixMap(module, map);
  EXPECT_EQ(module.files, (std::vector<std::string>{"X/a.c", "/c/d.c"}));
}

} // namespace
} // namespace dumpsyms
