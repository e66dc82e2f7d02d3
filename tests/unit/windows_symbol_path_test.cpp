// _NT_SYMBOL_PATH as dbghelp reads it, --symbol-server specs, file.ptr
// answers and the keys a symbol store files PDBs under.
#include "store/symbol_servers/windows_symbol_path.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(WindowsSymbolPath, ServersCachesAndDirectories) {
  auto sources = parseWindowsSymbolPath(
      " srv*C:\\cache*https://msdl.microsoft.com/download/symbols ; /plain/dir;"
      "cache*/shared;SRV*http://a/b;srv**http://c;symsrv*symsrv.dll*/d1*/d2*http://e;;",
      "/default");
  ASSERT_EQ(sources.size(), 5u);
  EXPECT_TRUE(sources[0].server);
  EXPECT_EQ(sources[0].location, "https://msdl.microsoft.com/download/symbols");
  EXPECT_EQ(sources[0].caches, std::vector<std::string>{"C:\\cache"});
  EXPECT_FALSE(sources[1].server);
  EXPECT_EQ(sources[1].location, "/plain/dir");
  EXPECT_TRUE(sources[1].caches.empty());
  // cache* caches every entry after it; srv*URL with no cache of its own
  // then needs no default.
  EXPECT_EQ(sources[2].location, "http://a/b");
  EXPECT_EQ(sources[2].caches, std::vector<std::string>{"/shared"});
  EXPECT_EQ(sources[3].caches, (std::vector<std::string>{"/shared", "/default"}));
  EXPECT_EQ(sources[4].location, "http://e");
  EXPECT_EQ(sources[4].caches, (std::vector<std::string>{"/shared", "/d1", "/d2"}));
}

TEST(WindowsSymbolPath, ServerWithoutCacheUsesTheDefault) {
  auto sources = parseWindowsSymbolPath("srv*http://x", "/default");
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_EQ(sources[0].caches, std::vector<std::string>{"/default"});
  EXPECT_TRUE(parseWindowsSymbolPath("srv*;srv*  ;cache*", "/d").empty());
}

TEST(WindowsSymbolPath, SpecAcceptsABareUrl) {
  auto sources = parseSymbolServerSpec("https://symbols.example.com/", "/default");
  ASSERT_EQ(sources.size(), 1u);
  EXPECT_TRUE(sources[0].server);
  EXPECT_EQ(sources[0].location, "https://symbols.example.com/");
  EXPECT_EQ(sources[0].caches, std::vector<std::string>{"/default"});
  auto directory = parseSymbolServerSpec("/mnt/symbols", "/default");
  ASSERT_EQ(directory.size(), 1u);
  EXPECT_FALSE(directory[0].server);
}

TEST(WindowsSymbolPath, FilePointers) {
  EXPECT_EQ(parseFilePointer("PATH:\\\\server\\share\\app.pdb\r\n").path,
            std::optional<std::string>("\\\\server\\share\\app.pdb"));
  FilePointer message = parseFilePointer("MSG: the file is withheld");
  EXPECT_FALSE(message.path);
  EXPECT_EQ(message.message, "the file is withheld");
  EXPECT_FALSE(parseFilePointer("<html>").path);
  EXPECT_FALSE(parseFilePointer("PATH:").path);
  EXPECT_FALSE(parseFilePointer("PATH:a\nb").path);
}

TEST(WindowsSymbolPath, PdbKeysAreUpperCase) {
  EXPECT_EQ(pdbServerKey(DebugId("72e103a85cb249078b76b2e7c06257b1a")),
            "72E103A85CB249078B76B2E7C06257B1A");
}

} // namespace
} // namespace dumpsyms
