// The symbol-server paths and the cache's remembered misses (the fetching
// itself is the symbol_servers end-to-end test's, against nginx).
#include "store/symbol_servers/symbol_cache.h"
#include "store/symbol_servers/symbol_servers.h"

#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>

using namespace dumpsyms;

TEST(SymbolKeyPaths, DebugIdFirstThenCodeId) {
  EXPECT_EQ(symbolKeyPaths({"xul.pdb", DebugId("ABC1"), "xul.dll", CodeId("5E4F0E9E2000")}),
            (std::vector<std::string>{"xul.pdb/ABC1/xul.sym", "xul.dll/5E4F0E9E2000/xul.dll.sym"}));
  EXPECT_EQ(symbolKeyPaths({"", DebugId(""), "crash.exe", CodeId("5E4F0E9E2000")}),
            (std::vector<std::string>{"crash.exe/5E4F0E9E2000/crash.exe.sym"}));
  EXPECT_EQ(symbolKeyPaths({"libc.so.6", DebugId("ABC0"), "", CodeId("")}),
            (std::vector<std::string>{"libc.so.6/ABC0/libc.so.6.sym"}));
}

TEST(SymbolKeyPaths, NothingThatLeavesTheStore) {
  EXPECT_TRUE(symbolKeyPaths({"..", DebugId("ABC"), "", CodeId("")}).empty());
  EXPECT_TRUE(symbolKeyPaths({"a/b", DebugId("ABC"), "", CodeId("")}).empty());
  EXPECT_TRUE(symbolKeyPaths({"a", DebugId(".."), "x", CodeId("")}).empty());
  EXPECT_TRUE(symbolKeyPaths({"", DebugId(""), "", CodeId("")}).empty());
}

TEST(SymbolCache, MissesAreRememberedForTheirTimeToLive) {
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("symbol-cache", root));
  SymbolCache cache(root.str().str(), std::chrono::seconds(3600));
  EXPECT_FALSE(cache.missRemembered("http://a", "m/ID/m.sym"));
  cache.rememberMiss("http://a", "m/ID/m.sym");
  EXPECT_TRUE(cache.missRemembered("http://a", "m/ID/m.sym"));
  EXPECT_FALSE(cache.missRemembered("http://b", "m/ID/m.sym")); // per server
  EXPECT_FALSE(cache.has("m/ID/m.sym"));                        // a mark is not a file
  SymbolCache no_memory(root.str().str(), std::chrono::seconds(0));
  EXPECT_FALSE(no_memory.missRemembered("http://a", "m/ID/m.sym"));
  auto file = cache.begin("m/ID/m.sym");
  ASSERT_TRUE(bool(file));
  ASSERT_FALSE(bool(file->commit()));
  EXPECT_TRUE(cache.has("m/ID/m.sym"));
  llvm::sys::fs::remove_directories(root);
}
