// The store catalog over a directory store: headers parsed (hostile ones
// skipped), files misfiled or kept, the summary, every kind of search, its
// pages and note, a module's builds, and when the catalog reads again.
#include "store/backend/store_backend.h"
#include "store/catalog/catalog_header.h"
#include "store/catalog/store_catalog.h"
#include "tests/support/forwarding_backend.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

namespace dumpsyms {
namespace {

const std::string kElfId = "0123456789ABCDEF0123456789ABCDEF0";
const std::string kElfNewId = "FEDCBA9876543210FEDCBA9876543210A";
const std::string kBuildId = "89abcdef0123456789abcdef01234567";
const std::string kPeId = "5F3A1B2C4D5E6F708192A3B4C5D6E7F81";
const std::string kMacId = "A1B2C3D4E5F60718293A4B5C6D7E8F900";

// A backend that counts the headers read, around the directory one.
class CountingBackend final : public test::ForwardingBackend {
public:
  explicit CountingBackend(std::unique_ptr<StoreBackend> inner)
      : ForwardingBackend(std::move(inner)) {}
  llvm::Expected<std::string> readRange(const std::string& relative, uint64_t offset,
                                        uint64_t length) override {
    ++reads;
    return ForwardingBackend::readRange(relative, offset, length);
  }
  std::atomic<int> reads{0};
};

class StoreCatalogTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("store-catalog-test", path));
    root = std::string(path);
    // An ELF module in two builds, a PE with its kept PDB and its code-id
    // link (with the DLL kept beside it), a Mach-O module.
    write("libfoo.so/" + kElfId + "/libfoo.so.sym",
          "MODULE Linux x86_64 " + kElfId + " libfoo.so\nINFO CODE_ID " + kBuildId +
              " libfoo.so\nINFO GENERATOR dump_syms 1.0\nFILE 0 a.c\n",
          1000);
    write("libfoo.so/" + kElfNewId + "/libfoo.so.sym",
          "MODULE Linux x86_64 " + kElfNewId +
              " libfoo.so\nINFO CODE_ID 1111222233334444 libfoo.so\nFILE 0 a.c\n",
          3000);
    write("foo.pdb/" + kPeId + "/foo.sym",
          "MODULE windows x86_64 " + kPeId + " foo.pdb\nINFO CODE_ID 5F3A1B2C1000 foo.dll\n", 2000);
    write("foo.pdb/" + kPeId + "/foo.pdb", "PDB bytes", 2000);
    write("foo.dll/5F3A1B2C1000/foo.dll", "MZ dll bytes", 2000);
    ASSERT_EQ(::symlink(("../../foo.pdb/" + kPeId + "/foo.sym").c_str(),
                        (root + "/foo.dll/5F3A1B2C1000/foo.dll.sym").c_str()),
              0);
    write("Bar/" + kMacId + "/Bar.sym",
          "MODULE mac arm64 " + kMacId +
              " Bar\nINFO CODE_ID A1B2C3D4E5F60718293A4B5C6D7E8F90 Bar\n",
          500);
    // The store's own files and a lookup index: never catalogued.
    write(".build-id/89/abcdef0123456789abcdef01234567", "executable libfoo.so/x/libfoo.so\n", 1);
    write(".uploads/key", "half an upload", 1);
    write("libfoo.so/" + kElfId + "/libfoo.so.sym.idx", "index", 1);
    auto opened = openStoreBackend(root, StoreBackendSettings{});
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    backend = std::make_unique<CountingBackend>(std::move(*opened));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(root); }

  void write(const std::string& relative, const std::string& bytes, time_t mtime) {
    std::string path = root + "/" + relative;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    struct timeval times[2] = {{mtime, 0}, {mtime, 0}};
    ASSERT_EQ(::utimes(path.c_str(), times), 0);
    sizes[relative] = bytes.size();
  }

  std::shared_ptr<const CatalogSnapshot> read() {
    StoreCatalog catalog(*backend);
    auto snapshot = catalog.snapshot();
    EXPECT_TRUE(bool(snapshot)) << llvm::toString(snapshot.takeError());
    return snapshot ? *snapshot : nullptr;
  }

  static std::vector<std::string> ids(const CatalogResults& results) {
    std::vector<std::string> ids;
    for (const CatalogMatch& match : results.matches)
      ids.push_back(match.entry.debug_id.str());
    return ids;
  }

  std::string root;
  std::unique_ptr<CountingBackend> backend;
  std::map<std::string, uint64_t> sizes;
};

TEST_F(StoreCatalogTest, ReadsEveryModuleWithItsHeader) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  ASSERT_EQ(snapshot->entries().size(), 4u);
  EXPECT_TRUE(snapshot->problems().empty()) << snapshot->problems().front();
  const CatalogEntry* elf = snapshot->find("libfoo.so", DebugId(kElfId));
  ASSERT_TRUE(elf);
  EXPECT_EQ(elf->relative_path, "libfoo.so/" + kElfId + "/libfoo.so.sym");
  EXPECT_EQ(elf->os, "Linux");
  EXPECT_EQ(elf->cpu, "x86_64");
  EXPECT_EQ(elf->code_id.str(), kBuildId);
  EXPECT_EQ(elf->code_file, "libfoo.so");
  EXPECT_EQ(elf->info, std::vector<std::string>{"GENERATOR dump_syms 1.0"});
  EXPECT_EQ(elf->mtime, 1000);
  EXPECT_FALSE(elf->etag.empty());
  EXPECT_TRUE(elf->kept.empty()); // the .idx is the server's own
}

TEST_F(StoreCatalogTest, SummaryCountsModulesFilesAndBytesAndListsNewestFirst) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  CatalogSummary summary = snapshot->summary(3);
  EXPECT_EQ(summary.modules, 3u);
  EXPECT_EQ(summary.symbol_files, 4u);
  EXPECT_EQ(summary.kept_files, 2u);
  uint64_t bytes = 0;
  for (const std::string& relative :
       {"libfoo.so/" + kElfId + "/libfoo.so.sym", "libfoo.so/" + kElfNewId + "/libfoo.so.sym",
        "foo.pdb/" + kPeId + "/foo.sym", "foo.pdb/" + kPeId + "/foo.pdb",
        std::string("foo.dll/5F3A1B2C1000/foo.dll"), "Bar/" + kMacId + "/Bar.sym"})
    bytes += sizes.at(relative);
  EXPECT_EQ(summary.bytes, bytes);
  ASSERT_EQ(summary.newest.size(), 3u);
  EXPECT_EQ(summary.newest[0].debug_id.str(), kElfNewId);
  EXPECT_EQ(summary.newest[1].debug_id.str(), kPeId);
  EXPECT_EQ(summary.newest[2].debug_id.str(), kElfId);
}

TEST_F(StoreCatalogTest, KeptFilesGoWithTheirBuildAndTheCodeIdLinkIsNoEntry) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  const CatalogEntry* pe = snapshot->find("foo.pdb", DebugId(kPeId));
  ASSERT_TRUE(pe);
  EXPECT_EQ(pe->kept, (std::vector<std::string>{"foo.dll/5F3A1B2C1000/foo.dll",
                                                "foo.pdb/" + kPeId + "/foo.pdb"}));
  EXPECT_EQ(pe->kept_bytes,
            sizes.at("foo.dll/5F3A1B2C1000/foo.dll") + sizes.at("foo.pdb/" + kPeId + "/foo.pdb"));
  for (const CatalogEntry& entry : snapshot->entries())
    EXPECT_NE(entry.relative_path, "foo.dll/5F3A1B2C1000/foo.dll.sym");
}

TEST_F(StoreCatalogTest, SearchesByNamePrefixInAnyCaseNewestFirst) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  CatalogResults results = snapshot->search({"LIBFOO", 1, 50});
  EXPECT_EQ(ids(results), (std::vector<std::string>{kElfNewId, kElfId}));
  EXPECT_EQ(results.matches[0].how, CatalogMatchKind::Name);
  EXPECT_EQ(results.total, 2u);
  EXPECT_EQ(results.note, "");
  // The code file is a name too; the entry is listed once.
  results = snapshot->search({"Foo.D", 1, 50});
  EXPECT_EQ(ids(results), std::vector<std::string>{kPeId});
  results = snapshot->search({"  b  ", 1, 50});
  EXPECT_EQ(ids(results), std::vector<std::string>{kMacId});
}

TEST_F(StoreCatalogTest, SearchesByDebugIdCodeIdAndBuildId) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  // A GUID as Windows tools print it: braces, dashes, lower case.
  CatalogResults results = snapshot->search({"{5f3a1b2c-4d5e", 1, 50});
  ASSERT_EQ(ids(results), std::vector<std::string>{kPeId});
  EXPECT_EQ(results.matches[0].how, CatalogMatchKind::DebugId);
  EXPECT_STREQ(catalogMatchName(results.matches[0].how), "debug id");

  results = snapshot->search({"5f3a1b2c10", 1, 50});
  ASSERT_EQ(ids(results), std::vector<std::string>{kPeId});
  EXPECT_EQ(results.matches[0].how, CatalogMatchKind::CodeId);

  results = snapshot->search({"89ABCDEF01", 1, 50});
  ASSERT_EQ(ids(results), std::vector<std::string>{kElfId});
  EXPECT_EQ(results.matches[0].how, CatalogMatchKind::BuildId);
  EXPECT_STREQ(catalogMatchName(results.matches[0].how), "build id");

  results = snapshot->search({"a1b2c3d4-e5f6", 1, 50}); // the Mach-O UUID
  ASSERT_EQ(ids(results), std::vector<std::string>{kMacId});
  EXPECT_EQ(results.matches[0].how, CatalogMatchKind::DebugId);

  results = snapshot->search({"0123456", 1, 50});
  EXPECT_TRUE(results.matches.empty());
  EXPECT_EQ(results.total, 0u);
  EXPECT_EQ(results.note, "an id needs 8 or more hex digits");
  EXPECT_EQ(snapshot->search({"01234567", 1, 50}).total, 1u);
  EXPECT_EQ(snapshot->search({"nothing-here", 1, 50}).note, "");
}

TEST_F(StoreCatalogTest, SearchResultsComeInPages) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  CatalogResults first = snapshot->search({"libfoo", 1, 1});
  EXPECT_EQ(first.total, 2u);
  EXPECT_EQ(first.pages, 2u);
  EXPECT_EQ(first.page, 1u);
  EXPECT_EQ(ids(first), std::vector<std::string>{kElfNewId});
  CatalogResults second = snapshot->search({"libfoo", 2, 1});
  EXPECT_EQ(ids(second), std::vector<std::string>{kElfId});
  CatalogResults beyond = snapshot->search({"libfoo", 9, 1});
  EXPECT_EQ(beyond.page, 2u);
  EXPECT_EQ(ids(beyond), std::vector<std::string>{kElfId});
  CatalogResults none = snapshot->search({"zzz", 3, 10});
  EXPECT_EQ(none.page, 1u);
  EXPECT_EQ(none.pages, 1u);
}

TEST_F(StoreCatalogTest, FindsABuildAndListsVersionsInAnyCase) {
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  const CatalogEntry* pe = snapshot->find("FOO.PDB", DebugId("5f3a1b2c4d5e6f708192a3b4c5d6e7f81"));
  ASSERT_TRUE(pe);
  EXPECT_EQ(pe->debug_id.str(), kPeId);
  EXPECT_EQ(snapshot->find("foo.pdb", DebugId(kElfId)), nullptr);
  EXPECT_EQ(snapshot->find("nothing", DebugId(kPeId)), nullptr);
  std::vector<const CatalogEntry*> versions = snapshot->versions("LibFoo.SO");
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0]->debug_id.str(), kElfNewId);
  EXPECT_EQ(versions[1]->debug_id.str(), kElfId);
  EXPECT_TRUE(snapshot->versions("libfoo").empty());
}

TEST_F(StoreCatalogTest, ListsModulesByFirstLetterWithTheirBuildsInPages) {
  write("7zip.so/" + kElfId + "/7zip.so.sym", "MODULE Linux x86_64 " + kElfId + " 7zip.so\n", 10);
  write("bar2/" + kElfId + "/bar2.sym", "MODULE Linux x86_64 " + kElfId + " bar2\n", 10);
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  CatalogModuleList first = snapshot->moduleList("", 1);
  using Letters = std::vector<std::pair<std::string, size_t>>;
  EXPECT_EQ(first.letters, (Letters{{"B", 2}, {"F", 1}, {"L", 1}, {"#", 1}}));
  EXPECT_EQ(first.letter, "B"); // none asked for: the first
  ASSERT_EQ(first.modules.size(), 2u);
  EXPECT_EQ(first.modules[0].debug_file, "Bar"); // any case, then as is
  EXPECT_EQ(first.modules[1].debug_file, "bar2");

  CatalogModuleList l = snapshot->moduleList("l", 1);
  EXPECT_EQ(l.letter, "L");
  ASSERT_EQ(l.modules.size(), 1u);
  EXPECT_EQ(l.modules[0].debug_file, "libfoo.so");
  EXPECT_EQ(l.modules[0].builds, 2u);
  EXPECT_EQ(l.modules[0].newest.debug_id.str(), kElfNewId);

  EXPECT_EQ(snapshot->moduleList("#", 1).modules.at(0).debug_file, "7zip.so");
  EXPECT_EQ(snapshot->moduleList("Z", 1).letter, "B"); // none under Z
  EXPECT_EQ(snapshot->moduleList("<script>", 1).letter, "B");

  CatalogModuleList second = snapshot->moduleList("B", 2, 1);
  EXPECT_EQ(second.total, 2u);
  EXPECT_EQ(second.pages, 2u);
  EXPECT_EQ(second.page, 2u);
  ASSERT_EQ(second.modules.size(), 1u);
  EXPECT_EQ(second.modules[0].debug_file, "bar2");
  EXPECT_EQ(snapshot->moduleList("B", 9, 1).page, 2u);
}

TEST_F(StoreCatalogTest, MisfiledHostileAndStrayFilesAreProblemsNotEntries) {
  write("wrong.so/" + kElfId + "/wrong.so.sym",
        "MODULE Linux x86_64 " + kElfId + " libfoo.so\nFILE 0 a.c\n", 10);
  write("nul.so/" + kElfId + "/nul.so.sym",
        std::string("MODULE Linux x86_64 " + kElfId + " nul\0.so\n", 55), 10);
  write("huge.so/" + kElfId + "/huge.so.sym", "MODULE Linux x86_64 " + std::string(10000, 'A'), 10);
  write("short.so/" + kElfId + "/short.so.sym", "MODULE Linux x86_64\n", 10);
  write("empty.so/" + kElfId + "/empty.so.sym", "", 10);
  write("stray/" + kElfId + "/stray.bin", "no symbols here", 10);
  auto snapshot = read();
  ASSERT_TRUE(snapshot);
  EXPECT_EQ(snapshot->entries().size(), 4u);
  std::vector<std::string> expected = {
      "empty.so/" + kElfId +
          "/empty.so.sym: does not start with a MODULE line (os, cpu, id and "
          "name)",
      "huge.so/" + kElfId +
          "/huge.so.sym: does not start with a MODULE line (os, cpu, id and name)",
      "nul.so/" + kElfId + "/nul.so.sym: does not start with a MODULE line (os, cpu, id and name)",
      "short.so/" + kElfId +
          "/short.so.sym: does not start with a MODULE line (os, cpu, id and "
          "name)",
      "stray/" + kElfId + "/stray.bin: not beside a symbol file",
      "wrong.so/" + kElfId + "/wrong.so.sym: its MODULE line files it as libfoo.so/" + kElfId +
          "/libfoo.so.sym",
  };
  EXPECT_EQ(snapshot->problems(), expected);
}

TEST_F(StoreCatalogTest, ReadsAgainAfterInvalidateAndOnlyTheChangedHeaders) {
  StoreCatalog catalog(*backend, std::chrono::seconds(3600));
  auto first = catalog.snapshot();
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(backend->reads.load(), 5); // four modules and the code-id link

  write("new.so/" + kElfId + "/new.so.sym", "MODULE Linux x86_64 " + kElfId + " new.so\n", 4000);
  auto cached = catalog.snapshot();
  ASSERT_TRUE(bool(cached));
  EXPECT_EQ(cached->get(), first->get()); // not old enough to read again
  EXPECT_EQ((*cached)->entries().size(), 4u);

  catalog.invalidate();
  auto again = catalog.snapshot();
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ((*again)->entries().size(), 5u);
  EXPECT_TRUE((*again)->find("new.so", DebugId(kElfId)));
  // Only the new file was read; the unchanged headers (the link's too) were not.
  EXPECT_EQ(backend->reads.load(), 6);
  EXPECT_EQ((*again)->summary().newest.front().debug_file, "new.so");
}

TEST_F(StoreCatalogTest, ThreadsShareOneReading) {
  StoreCatalog catalog(*backend, std::chrono::seconds(3600));
  std::vector<std::thread> threads;
  std::vector<const CatalogSnapshot*> seen(4, nullptr);
  for (size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] {
      auto snapshot = catalog.snapshot();
      if (snapshot)
        seen[i] = snapshot->get();
      else
        llvm::consumeError(snapshot.takeError());
    });
  for (std::thread& thread : threads)
    thread.join();
  for (const CatalogSnapshot* snapshot : seen)
    EXPECT_EQ(snapshot, seen[0]);
  EXPECT_NE(seen[0], nullptr);
  EXPECT_EQ(backend->reads.load(), 5);
}

} // namespace
} // namespace dumpsyms
