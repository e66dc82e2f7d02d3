// The symbol store library: layout, atomic writes and their stale
// temporaries, the manifest's JSON.
#include "common/files/atomic_file.h"
#include "store/layout/layout.h"
#include "store/layout/manifest.h"
#include "store/layout/store_listing.h"

#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/JSON.h>
#include <sstream>
#include <unistd.h>

namespace dumpsyms {
namespace {

std::string makeTemporaryDirectory() {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("store-test", path));
  return std::string(path);
}

TEST(StoreLayout, ElfAndPdbNames) {
  EXPECT_EQ(symbolFileRelativePath("libfoo.so.1", DebugId("ABC0")),
            "libfoo.so.1/ABC0/libfoo.so.1.sym");
  EXPECT_EQ(symbolFileRelativePath("app.pdb", DebugId("ABC1")), "app.pdb/ABC1/app.sym");
  EXPECT_EQ(symbolFileRelativePath("APP.PDB", DebugId("ABC1")), "APP.PDB/ABC1/APP.sym");
  EXPECT_EQ(symbolFilePath("/s", "app", DebugId("ID")), "/s/app/ID/app.sym");
}

// Binaries kept for debuginfod and symbol-server clients sit beside the
// symbol file, and a build id finds them through the .build-id index.
TEST(StoreLayout, KeptFilesAndBuildIdIndex) {
  EXPECT_EQ(keptFileRelativePath("libfoo.so", DebugId("ABC0"), "libfoo.so.debug"),
            "libfoo.so/ABC0/libfoo.so.debug");
  EXPECT_EQ(keptFileRelativePath("app.exe", CodeId("5F3A1B2C4000"), "app.exe"),
            "app.exe/5F3A1B2C4000/app.exe");
  EXPECT_EQ(buildIdIndexRelativePath(*BuildId::parseHex("ABCDEF0123")), ".build-id/ab/cdef0123");
  EXPECT_EQ(buildIdIndexRelativePath(*BuildId::parseHex("abcdef0123")), ".build-id/ab/cdef0123");
}

TEST(StoreLayout, BuildIdEntriesRoundTrip) {
  BuildIdEntry both{"app/ID/app", "app/ID/app.debug"};
  EXPECT_EQ(formatBuildIdEntry(both), "executable app/ID/app\ndebuginfo app/ID/app.debug\n");
  auto parsed = parseBuildIdEntry(formatBuildIdEntry(both));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->executable, both.executable);
  EXPECT_EQ(parsed->debuginfo, both.debuginfo);

  BuildIdEntry debug_only{"", "app/ID/app.debug"};
  EXPECT_EQ(formatBuildIdEntry(debug_only), "debuginfo app/ID/app.debug\n");
  parsed = parseBuildIdEntry("debuginfo app/ID/app.debug"); // no final newline
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->executable, "");
  EXPECT_EQ(parsed->debuginfo, "app/ID/app.debug");
}

// An entry is read from the store, which another server or a hand may have
// written: anything but the two lines naming safe paths is refused.
TEST(StoreLayout, BadBuildIdEntriesAreRefused) {
  for (const char* text :
       {"", "\n", "executable\n", "executable \n", "executable ../etc/passwd\n",
        "debuginfo /etc/passwd\n", "executable a/b\nexecutable a/c\n", "symbols a/b\n",
        "executable a/b\r\n", "executable a/b\n\n", "debuginfo .build-id/ab/cd\n"})
    EXPECT_FALSE(parseBuildIdEntry(text)) << text;
}

TEST(StoreLayout, SafeRelativePaths) {
  for (const char* good : {"a", "app.pdb/ABC1/app.sym", "libfoo.so.1/ABC0/libfoo.so.1.debug",
                           "a.b/c..d/e...", "x/y z/w", "\xc3\xa9t\xc3\xa9/ID/f"})
    EXPECT_TRUE(isSafeRelativePath(good)) << good;
  std::string nul("a");
  nul += '\0';
  nul += "b";
  for (const std::string& bad : {std::string(""),
                                 std::string(".."),
                                 std::string("."),
                                 std::string("../a"),
                                 std::string("a/.."),
                                 std::string("a/../b"),
                                 std::string("a/./b"),
                                 std::string("a//b"),
                                 std::string("/abs"),
                                 std::string("/"),
                                 std::string("a/"),
                                 std::string("a\\b"),
                                 std::string("..\\a"),
                                 std::string("C:x"),
                                 std::string("C:/x"),
                                 std::string("a/C:"),
                                 std::string(".hidden"),
                                 std::string("a/.hidden/b"),
                                 std::string(".build-id/ab/cd"),
                                 std::string(".incoming/x"),
                                 std::string("a\nb"),
                                 std::string("a\tb"),
                                 std::string("a\rb"),
                                 std::string("a\x7f"),
                                 std::string("a\x01/b"),
                                 nul})
    EXPECT_FALSE(isSafeRelativePath(bad)) << bad;
}

// A PE without a CodeView record has the id of 33 zeros, which names no
// build: its file goes under its code id, where listings expect it.
TEST(StoreLayout, NullDebugIdsAreFiledByCodeId) {
  std::string null(33, '0');
  EXPECT_TRUE(DebugId(null).isNull());
  EXPECT_FALSE(DebugId(std::string(32, '0') + "1").isNull());
  EXPECT_FALSE(DebugId().isNull());
  EXPECT_EQ(moduleRelativePath("app.exe", DebugId(null), "app.exe", CodeId("5F3A1B2C4000")),
            "app.exe/5F3A1B2C4000/app.exe.sym");
  EXPECT_EQ(moduleRelativePath("app.pdb", DebugId("ABC1"), "app.exe", CodeId("5F3A1B2C4000")),
            "app.pdb/ABC1/app.sym");
  // (no code id, or one no path can be made of: the debug-id path)
  EXPECT_EQ(moduleRelativePath("app.exe", DebugId(null), "", CodeId("")),
            "app.exe/" + null + "/app.exe.sym");
  EXPECT_EQ(moduleRelativePath("app.exe", DebugId(null), "../x", CodeId("ID")),
            "app.exe/" + null + "/app.exe.sym");

  std::string dir = makeTemporaryDirectory();
  std::string relative =
      moduleRelativePath("app.exe", DebugId(null), "app.exe", CodeId("5F3A1B2C4000"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/app.exe/5F3A1B2C4000"));
  std::ofstream(dir + "/" + relative)
      << "MODULE windows x86_64 " << null << " app.exe\nINFO CODE_ID 5F3A1B2C4000 app.exe\n";
  auto listing = listStore(dir);
  ASSERT_TRUE(bool(listing));
  EXPECT_TRUE(listing->problems.empty());
  ASSERT_EQ(listing->files.size(), 1u);
  EXPECT_EQ(listing->files[0].relative_path, relative);
  llvm::sys::fs::remove_directories(dir);
}

// Binaries kept beside the symbol files (--keep-binaries) are not symbol
// files and no problem; a foreign file is still one.
TEST(StoreListing, KeptBinariesArePassedOver) {
  std::string dir = makeTemporaryDirectory();
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/app/ID0"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/app.exe/5F3A1B2C4000"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/.build-id/ab"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/other/ID1"));
  std::ofstream(dir + "/app/ID0/app.sym") << "MODULE Linux x86_64 ID0 app\n";
  std::ofstream(dir + "/app/ID0/app") << "\x7f"
                                         "ELF";
  std::ofstream(dir + "/app/ID0/app.debug") << "\x7f"
                                               "ELF";
  std::ofstream(dir + "/.build-id/ab/cdef") << "executable app/ID0/app\n";
  ASSERT_FALSE(llvm::sys::fs::create_link("../../app/ID0/app.sym",
                                          dir + "/app.exe/5F3A1B2C4000/app.exe.sym"));
  std::ofstream(dir + "/app.exe/5F3A1B2C4000/app.exe") << "MZ";
  std::ofstream(dir + "/other/ID1/foreign.bin") << "x";
  std::ofstream(dir + "/stray") << "x";
  auto listing = listStore(dir);
  ASSERT_TRUE(bool(listing));
  ASSERT_EQ(listing->files.size(), 1u);
  EXPECT_EQ(listing->files[0].relative_path, "app/ID0/app.sym");
  ASSERT_EQ(listing->problems.size(), 2u);
  EXPECT_NE(listing->problems[0].find("foreign.bin"), std::string::npos);
  EXPECT_NE(listing->problems[1].find("stray"), std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

// What an upload sends beyond the symbol files: the kept binaries beside a
// .sym (or a code-id link), and the .build-id entries that parse and name
// only kept files; any other entry is a problem.
TEST(StoreListing, ListsKeptBinariesAndBuildIdEntries) {
  std::string dir = makeTemporaryDirectory();
  for (const char* sub : {"/app/ID0", "/app.exe/5F3A1B2C4000", "/.build-id/ab", "/.build-id/cd"})
    ASSERT_FALSE(llvm::sys::fs::create_directories(dir + sub));
  std::ofstream(dir + "/app/ID0/app.sym") << "MODULE Linux x86_64 ID0 app\n";
  std::ofstream(dir + "/app/ID0/app") << "ELF";
  std::ofstream(dir + "/app/ID0/app.debug") << "ELF";
  ASSERT_FALSE(llvm::sys::fs::create_link("../../app/ID0/app.sym",
                                          dir + "/app.exe/5F3A1B2C4000/app.exe.sym"));
  std::ofstream(dir + "/app.exe/5F3A1B2C4000/app.exe") << "MZ";
  std::ofstream(dir + "/.build-id/ab/cdef")
      << "executable app/ID0/app\ndebuginfo app/ID0/app.debug\n";
  std::ofstream(dir + "/.build-id/ab/.tmp123") << "partial"; // a temporary: passed over
  std::ofstream(dir + "/.build-id/cd/0001") << "executable app/ID0/missing\n";
  std::ofstream(dir + "/.build-id/cd/00FF") << "executable app/ID0/app\n";
  std::ofstream(dir + "/.build-id/cd/0002") << "debuginfo ../../etc/passwd\n";
  auto listing = listStore(dir);
  ASSERT_TRUE(bool(listing));
  ASSERT_EQ(listing->files.size(), 1u);
  ASSERT_EQ(listing->kept_files.size(), 3u);
  EXPECT_EQ(listing->kept_files[0].relative_path, "app.exe/5F3A1B2C4000/app.exe");
  EXPECT_EQ(listing->kept_files[1].relative_path, "app/ID0/app");
  EXPECT_EQ(listing->kept_files[1].size, 3u);
  EXPECT_EQ(listing->kept_files[1].kind, StoredKind::KeptBinary);
  EXPECT_EQ(listing->kept_files[2].relative_path, "app/ID0/app.debug");
  ASSERT_EQ(listing->build_id_entries.size(), 1u);
  EXPECT_EQ(listing->build_id_entries[0].relative_path, ".build-id/ab/cdef");
  EXPECT_EQ(listing->build_id_entries[0].kind, StoredKind::BuildIdEntry);
  ASSERT_EQ(listing->problems.size(), 3u);
  EXPECT_NE(listing->problems[0].find("0001: names app/ID0/missing"), std::string::npos);
  EXPECT_NE(listing->problems[1].find("0002: not a build-id index entry"), std::string::npos);
  EXPECT_NE(listing->problems[2].find("00FF: not a build-id index entry"), std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

TEST(AtomicFile, WritesWholeFileAndLeavesNoTemporary) {
  std::string dir = makeTemporaryDirectory();
  std::string path = dir + "/out.sym";
  ASSERT_FALSE(writeFileAtomically(path, [](std::ostream& out) { out << "MODULE x\n"; }));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "MODULE x\n");
  std::error_code error;
  size_t entries = 0;
  for (llvm::sys::fs::directory_iterator it(dir, error), end; it != end && !error;
       it.increment(error))
    ++entries;
  EXPECT_EQ(entries, 1u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(AtomicFile, StaleTemporariesOfDeadProcessesAreRemoved) {
  std::string dir = makeTemporaryDirectory();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::string name(host);
  for (char& c : name)
    if (c == '-' || c == '/')
      c = '_';
  // pid 0x7ffffffe is beyond any pid_max: that process is gone. Our own
  // parent is alive: its temporary stays.
  std::string dead = dir + "/.a.sym.tmp-" + name + "-2147483646-Ab12Cd";
  std::string alive = dir + "/.b.sym.tmp-" + name + "-" + std::to_string(getppid()) + "-Ab12Cd";
  std::string other = dir + "/.c.sym.tmp-elsewhere-12-Ab12Cd"; // another host, fresh
  std::string plain = dir + "/c.sym";
  for (const std::string& path : {dead, alive, other, plain})
    std::ofstream(path) << "x";
  EXPECT_TRUE(isAtomicTemporary(".a.sym.tmp-h-1-X"));
  EXPECT_FALSE(isAtomicTemporary("a.sym"));
  EXPECT_EQ(removeStaleTemporaries(dir), 1u);
  EXPECT_FALSE(llvm::sys::fs::exists(dead));
  EXPECT_TRUE(llvm::sys::fs::exists(alive));
  EXPECT_TRUE(llvm::sys::fs::exists(other));
  EXPECT_TRUE(llvm::sys::fs::exists(plain));
  llvm::sys::fs::remove_directories(dir);
}

TEST(Manifest, EntryRoundTripsThroughJson) {
  ManifestEntry entry;
  entry.path = "release/bin/app";
  entry.key = "bin/app";
  entry.status = EntryStatus::NoDebugInfo;
  entry.module = "app";
  entry.cpu = "x86_64";
  entry.debug_id = DebugId("0123456789ABCDEF0123456789ABCDEF0");
  entry.code_id = CodeId("0123");
  entry.debug_info_from = "none";
  entry.sym = "app/0123456789ABCDEF0123456789ABCDEF0/app.sym";
  RecordCounts counts;
  counts.functions = 3;
  counts.cfi_changes = 9;
  entry.records = counts;
  entry.warnings = {"one", "two"};
  auto back = entryFromJson(toJson(entry));
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->path, entry.path);
  EXPECT_EQ(back->key, entry.key);
  EXPECT_EQ(back->status, EntryStatus::NoDebugInfo);
  EXPECT_EQ(back->debug_id, entry.debug_id);
  EXPECT_EQ(back->debug_info_from, "none");
  ASSERT_TRUE(back->records.has_value());
  EXPECT_EQ(back->records->functions, 3u);
  EXPECT_EQ(back->records->cfi_changes, 9u);
  EXPECT_EQ(back->warnings, entry.warnings);
  EXPECT_STREQ(statusName(EntryStatus::Duplicate), "duplicate");
  EXPECT_EQ(parseStatus("no-debug-info"), EntryStatus::NoDebugInfo);
  EXPECT_FALSE(parseStatus("maybe").has_value());
  EXPECT_FALSE(bool(entryFromJson(llvm::json::Value(3))));
  llvm::consumeError(entryFromJson(llvm::json::Value(3)).takeError());
}

TEST(Manifest, CountsStatusesAndWritesAtomically) {
  std::string dir = makeTemporaryDirectory();
  Manifest manifest;
  manifest.store = "s";
  manifest.shard = "0/1";
  for (EntryStatus status :
       {EntryStatus::Written, EntryStatus::Written, EntryStatus::Failed, EntryStatus::Duplicate}) {
    ManifestEntry entry;
    entry.status = status;
    manifest.entries.push_back(entry);
  }
  countStatuses(manifest);
  EXPECT_EQ(manifest.totals.candidates, 4u);
  EXPECT_EQ(manifest.totals.written, 2u);
  EXPECT_EQ(manifest.totals.failed, 1u);
  EXPECT_EQ(manifest.totals.duplicate, 1u);
  std::string path = dir + "/m.json";
  ASSERT_FALSE(writeManifest(path, manifest));
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = llvm::json::parse(text.str());
  ASSERT_TRUE(bool(parsed));
  EXPECT_EQ(parsed->getAsObject()->getArray("entries")->size(), 4u);
  EXPECT_EQ(parsed->getAsObject()->getObject("totals")->getInteger("written"), 2);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace
} // namespace dumpsyms
