// The directory store backend: reads confined to the store root (links
// inside it followed, links out of it absent), listings, and publication by
// rename, its three outcomes, its race between two publishers, and that a
// reader never sees a partial file.
#include "store/backend/directory_backend.h"
#include "store/backend/store_backend.h"

#include <atomic>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/Support/FileSystem.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace dumpsyms {
namespace {

std::string makeTemporaryDirectory(const char* prefix = "store-backend-test") {
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  return std::string(path);
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::string readFd(int fd) {
  std::string bytes;
  char buffer[65536];
  ssize_t got;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0)
    bytes.append(buffer, static_cast<size_t>(got));
  return bytes;
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

class DirectoryBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    root = makeTemporaryDirectory();
    outside = makeTemporaryDirectory("store-backend-outside");
    auto opened = openStoreBackend(root, StoreBackendSettings{});
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    backend = std::move(*opened);
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(root);
    llvm::sys::fs::remove_directories(outside);
  }

  // A file in the backend's spool holding `bytes`.
  std::string spool(const std::string& bytes) {
    std::string path = backend->spoolDirectory() + "/upload-XXXXXX";
    int fd = ::mkstemp(path.data()); // 0600, as the server spools
    EXPECT_GE(fd, 0);
    ::close(fd);
    writeFile(path, bytes);
    return path;
  }

  PublishOutcome publish(const std::string& relative, const std::string& bytes, bool replace) {
    std::string spooled = spool(bytes);
    auto outcome = backend->publish(relative, spooled, replace);
    EXPECT_TRUE(bool(outcome)) << llvm::toString(outcome.takeError());
    EXPECT_FALSE(exists(spooled)) << "the spooled file is consumed";
    return outcome ? *outcome : PublishOutcome::Conflict;
  }

  std::string root, outside;
  std::unique_ptr<StoreBackend> backend;
};

TEST(DirectoryBackend, AMissingOrNonDirectoryStoreIsAnErrorNamingIt) {
  auto missing = openStoreBackend("/nonexistent/store", StoreBackendSettings{});
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("/nonexistent/store"), std::string::npos);
  std::string dir = makeTemporaryDirectory();
  writeFile(dir + "/file", "x");
  auto file = openStoreBackend(dir + "/file", StoreBackendSettings{});
  ASSERT_FALSE(bool(file));
  EXPECT_NE(llvm::toString(file.takeError()).find(dir + "/file"), std::string::npos);
  llvm::sys::fs::remove_directories(dir);
}

TEST_F(DirectoryBackendTest, StatOpenAndReadRangeOfAFile) {
  ::mkdir((root + "/app").c_str(), 0755);
  ::mkdir((root + "/app/ID").c_str(), 0755);
  writeFile(root + "/app/ID/app.sym", "MODULE Linux x86_64 ID app\n");
  EXPECT_NE(backend->describe().find(root.substr(root.rfind('/'))), std::string::npos);

  auto info = backend->stat("app/ID/app.sym");
  ASSERT_TRUE(bool(info));
  ASSERT_TRUE(info->has_value());
  struct stat st;
  ASSERT_EQ(::stat((root + "/app/ID/app.sym").c_str(), &st), 0);
  EXPECT_EQ((*info)->size, 27u);
  EXPECT_EQ((*info)->mtime, st.st_mtim.tv_sec);
  ASSERT_GE((*info)->etag.size(), 3u);
  EXPECT_EQ((*info)->etag.front(), '"');
  EXPECT_EQ((*info)->etag.back(), '"');

  auto opened = backend->open("app/ID/app.sym");
  ASSERT_TRUE(bool(opened));
  EXPECT_EQ(opened->info.etag, (*info)->etag);
  EXPECT_EQ(readFd(opened->fd), "MODULE Linux x86_64 ID app\n");
  ::close(opened->fd);

  EXPECT_EQ(*backend->readRange("app/ID/app.sym", 0, 6), "MODULE");
  EXPECT_EQ(*backend->readRange("app/ID/app.sym", 23, 100), "app\n");
  EXPECT_EQ(*backend->readRange("app/ID/app.sym", 27, 10), "");
  EXPECT_EQ(*backend->readRange("app/ID/app.sym", 1000, 10), "");
}

// Servers over one store must agree on validators, and a changed file must
// get a new one even when its size stays.
TEST_F(DirectoryBackendTest, TheETagFollowsTheBytes) {
  writeFile(root + "/f", "aaaa");
  struct timespec times[2] = {{1000, 1}, {1000, 1}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (root + "/f").c_str(), times, 0), 0);
  std::string first = (**backend->stat("f")).etag;
  EXPECT_EQ((**backend->stat("f")).etag, first);
  auto other = openStoreBackend(root, StoreBackendSettings{});
  EXPECT_EQ((**(*other)->stat("f")).etag, first);
  times[1].tv_nsec = 2; // the same size, one nanosecond later
  ASSERT_EQ(::utimensat(AT_FDCWD, (root + "/f").c_str(), times, 0), 0);
  EXPECT_NE((**backend->stat("f")).etag, first);
  EXPECT_EQ((**backend->stat("f")).mtime, 1000);
}

TEST_F(DirectoryBackendTest, OnlyRegularFilesUnderTheRootAreThere) {
  ::mkdir((root + "/dir").c_str(), 0755);
  ASSERT_EQ(::mkfifo((root + "/fifo").c_str(), 0644), 0);
  writeFile(outside + "/secret", "secret");
  writeFile(root + "/inside", "inside");
  ASSERT_EQ(::symlink((outside + "/secret").c_str(), (root + "/absolute-out").c_str()), 0);
  std::string up = "../" + outside.substr(outside.rfind('/') + 1) + "/secret";
  ASSERT_EQ(::symlink(up.c_str(), (root + "/relative-out").c_str()), 0);
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/dir-out").c_str()), 0);
  ASSERT_EQ(::symlink("../inside", (root + "/dir/link-in").c_str()), 0);

  for (const char* absent : {"missing", "dir", "fifo", "absolute-out", "relative-out",
                             "dir-out/secret", "../inside", "dir/../inside", "/inside", ""}) {
    auto info = backend->stat(absent);
    ASSERT_TRUE(bool(info)) << absent;
    EXPECT_FALSE(info->has_value()) << absent;
    auto opened = backend->open(absent);
    EXPECT_FALSE(bool(opened)) << absent;
    llvm::consumeError(opened.takeError());
    auto range = backend->readRange(absent, 0, 10);
    EXPECT_FALSE(bool(range)) << absent;
    llvm::consumeError(range.takeError());
  }
  // The code-id index's relative links inside the store are followed.
  auto linked = backend->stat("dir/link-in");
  ASSERT_TRUE(bool(linked));
  ASSERT_TRUE(linked->has_value());
  EXPECT_EQ((*linked)->size, 6u);
  EXPECT_EQ(*backend->readRange("dir/link-in", 0, 100), "inside");
}

// What a download asks: one call that opens the file, blocking (a FIFO is
// opened non-blocking to be refused), through links that stay in the store,
// an absolute one too; links leading out are absent.
TEST_F(DirectoryBackendTest, OpenIfPresentFollowsOnlyLinksThatStayInside) {
  ::mkdir((root + "/dir").c_str(), 0755);
  writeFile(root + "/inside", "inside");
  writeFile(outside + "/secret", "secret");
  ASSERT_EQ(::symlink("../inside", (root + "/dir/relative-in").c_str()), 0);
  ASSERT_EQ(::symlink((root + "/inside").c_str(), (root + "/dir/absolute-in").c_str()), 0);
  ASSERT_EQ(::symlink((outside + "/secret").c_str(), (root + "/dir/absolute-out").c_str()), 0);
  ASSERT_EQ(::mkfifo((root + "/dir/fifo").c_str(), 0644), 0);

  for (const char* present : {"inside", "dir/relative-in", "dir/absolute-in"}) {
    auto opened = backend->openIfPresent(present);
    ASSERT_TRUE(bool(opened)) << present << ": " << llvm::toString(opened.takeError());
    ASSERT_TRUE(opened->has_value()) << present;
    int fd = (*opened)->fd;
    ASSERT_GE(fd, 0) << present;
    EXPECT_EQ((*opened)->info.size, 6u) << present;
    EXPECT_EQ(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0) << present;
    char bytes[16] = {};
    EXPECT_EQ(::pread(fd, bytes, sizeof bytes, 0), 6) << present;
    EXPECT_STREQ(bytes, "inside") << present;
    ::close(fd);
  }
  for (const char* absent :
       {"missing", "dir", "dir/fifo", "dir/absolute-out", "dir/missing/deeper", "inside/below"}) {
    auto opened = backend->openIfPresent(absent);
    ASSERT_TRUE(bool(opened)) << absent << ": " << llvm::toString(opened.takeError());
    EXPECT_FALSE(opened->has_value()) << absent;
  }
}

TEST_F(DirectoryBackendTest, ListNamesOneLevelWithoutHiddenNames) {
  ::mkdir((root + "/b.pdb").c_str(), 0755);
  ::mkdir((root + "/A.pdb").c_str(), 0755);
  ::mkdir((root + "/A.pdb/ID2").c_str(), 0755);
  ::mkdir((root + "/A.pdb/ID1").c_str(), 0755);
  writeFile(root + "/A.pdb/ID1/A.sym", "x");
  ::mkdir((root + "/.build-id").c_str(), 0755);
  writeFile(root + "/.hidden-temporary", "x");
  backend->spoolDirectory();
  writeFile(outside + "/secret", "x");
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/out").c_str()), 0);

  EXPECT_EQ(*backend->listNames(""), (std::vector<std::string>{"A.pdb", "b.pdb", "out"}));
  EXPECT_EQ(*backend->listNames("A.pdb"), (std::vector<std::string>{"ID1", "ID2"}));
  EXPECT_EQ(*backend->listNames("A.pdb/ID1"), (std::vector<std::string>{"A.sym"}));
  EXPECT_TRUE(backend->listNames("missing")->empty());
  EXPECT_TRUE(backend->listNames("A.pdb/ID1/A.sym")->empty());
  EXPECT_TRUE(backend->listNames("out")->empty()) << "a directory outside the store";
  EXPECT_TRUE(backend->listNames("..")->empty());
  EXPECT_TRUE(backend->listNames("A.pdb/../..")->empty());
}

TEST_F(DirectoryBackendTest, TheSpoolIsAHiddenDirectoryInTheStore) {
  std::string spool_dir = backend->spoolDirectory();
  EXPECT_EQ(spool_dir, root + "/.incoming");
  struct stat st;
  ASSERT_EQ(::stat(spool_dir.c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
}

// What a killed server left in the spool goes when a server opens the
// store, once it is a day old; what another server is spooling now stays.
TEST_F(DirectoryBackendTest, StaleSpoolFilesAreRemovedOnOpen) {
  std::string spool_dir = backend->spoolDirectory();
  writeFile(spool_dir + "/upload-old", "old");
  writeFile(spool_dir + "/upload-new", "new");
  struct timespec times[2] = {{::time(nullptr) - 25 * 60 * 60, 0},
                              {::time(nullptr) - 25 * 60 * 60, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (spool_dir + "/upload-old").c_str(), times, 0), 0);
  auto reopened = openStoreBackend(root, StoreBackendSettings{});
  ASSERT_TRUE(bool(reopened));
  EXPECT_FALSE(exists(spool_dir + "/upload-old"));
  EXPECT_TRUE(exists(spool_dir + "/upload-new"));
}

TEST_F(DirectoryBackendTest, RemoveTakesTheServersOwnFileAndNothingOutsideTheStore) {
  EXPECT_EQ(publish(".uploads/k1", "pending", false), PublishOutcome::Published);
  llvm::Error removed = backend->remove(".uploads/k1");
  EXPECT_FALSE(bool(removed)) << llvm::toString(std::move(removed));
  EXPECT_FALSE(exists(root + "/.uploads/k1"));
  llvm::Error again = backend->remove(".uploads/k1");
  EXPECT_FALSE(bool(again)) << "gone already is success: " << llvm::toString(std::move(again));
  // A directory link leading out of the store: what it leads to stays.
  writeFile(outside + "/victim", "theirs");
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/out").c_str()), 0);
  llvm::consumeError(backend->remove("out/victim"));
  EXPECT_TRUE(exists(outside + "/victim"));
  llvm::Error traversal = backend->remove("../victim");
  EXPECT_TRUE(bool(traversal));
  llvm::consumeError(std::move(traversal));
}

TEST_F(DirectoryBackendTest, UncompletedUploadsADayOldAreRemovedOnOpen) {
  EXPECT_EQ(publish(".uploads/old", "old", false), PublishOutcome::Published);
  EXPECT_EQ(publish(".uploads/new", "new", false), PublishOutcome::Published);
  struct timespec times[2] = {{::time(nullptr) - 25 * 60 * 60, 0},
                              {::time(nullptr) - 25 * 60 * 60, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (root + "/.uploads/old").c_str(), times, 0), 0);
  auto reopened = openStoreBackend(root, StoreBackendSettings{});
  ASSERT_TRUE(bool(reopened));
  EXPECT_FALSE(exists(root + "/.uploads/old"));
  EXPECT_TRUE(exists(root + "/.uploads/new"));
}

TEST_F(DirectoryBackendTest, PublishOutcomes) {
  const std::string key = "app/ID/app.sym";
  EXPECT_EQ(publish(key, "one", false), PublishOutcome::Published);
  EXPECT_EQ(readFile(root + "/" + key), "one");

  // The same bytes again: nothing changes, not even the validator.
  std::string etag = (**backend->stat(key)).etag;
  EXPECT_EQ(publish(key, "one", false), PublishOutcome::Same);
  EXPECT_EQ((**backend->stat(key)).etag, etag);
  EXPECT_EQ(publish(key, "one", true), PublishOutcome::Same);
  EXPECT_EQ((**backend->stat(key)).etag, etag);

  // Other bytes: refused, and the old file stays, unless replacing.
  EXPECT_EQ(publish(key, "two", false), PublishOutcome::Conflict);
  EXPECT_EQ(readFile(root + "/" + key), "one");
  EXPECT_EQ(publish(key, "onf", false), PublishOutcome::Conflict); // same size
  EXPECT_EQ(publish(key, "", false), PublishOutcome::Conflict);
  EXPECT_EQ(publish(key, "two", true), PublishOutcome::Published);
  EXPECT_EQ(readFile(root + "/" + key), "two");

  // As readable as the files symstore add writes, not 0600 as spooled.
  struct stat st;
  ASSERT_EQ(::stat((root + "/" + key).c_str(), &st), 0);
  mode_t mask = ::umask(0);
  ::umask(mask);
  EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);

  // Internal keys (sym-upload-v2's uploads in flight) may be published.
  EXPECT_EQ(publish(".uploads/key", "body", false), PublishOutcome::Published);
  EXPECT_EQ(readFile(root + "/.uploads/key"), "body");

  // Nothing but the published files is left in the store.
  EXPECT_TRUE(backend->listNames(".incoming")->empty());
  EXPECT_EQ(*backend->listNames(""), (std::vector<std::string>{"app"}));
}

TEST_F(DirectoryBackendTest, PublishRefusesKeysOutsideTheStore) {
  writeFile(outside + "/victim", "victim");
  ASSERT_EQ(::symlink(outside.c_str(), (root + "/out").c_str()), 0);
  for (const char* key : {"../escaped", "a/../../escaped", "/tmp/escaped", "", "a//b", "out/victim",
                          "out/new/file"}) {
    std::string spooled = spool("evil");
    auto outcome = backend->publish(key, spooled, true);
    EXPECT_FALSE(bool(outcome)) << key;
    llvm::consumeError(outcome.takeError());
    EXPECT_FALSE(exists(spooled)) << key;
  }
  EXPECT_EQ(readFile(outside + "/victim"), "victim");
  EXPECT_FALSE(exists(outside + "/new"));
  EXPECT_FALSE(exists(root + "/../escaped"));
}

// A file that is there but not a regular file under the root is never
// overwritten or compared: the upload conflicts.
TEST_F(DirectoryBackendTest, PublishOverALinkOrDirectoryConflicts) {
  writeFile(outside + "/victim", "evil");
  ::mkdir((root + "/a").c_str(), 0755);
  ASSERT_EQ(::symlink((outside + "/victim").c_str(), (root + "/a/link").c_str()), 0);
  ::mkdir((root + "/a/dir").c_str(), 0755);
  EXPECT_EQ(publish("a/link", "evil", false), PublishOutcome::Conflict);
  EXPECT_EQ(publish("a/dir", "evil", false), PublishOutcome::Conflict);
  EXPECT_EQ(readFile(outside + "/victim"), "evil");
}

// A spool on another file system (tmpfs) is copied in, then renamed.
TEST_F(DirectoryBackendTest, PublishFromAnotherFileSystem) {
  if (!exists("/dev/shm"))
    GTEST_SKIP() << "no /dev/shm";
  std::string spooled = "/dev/shm/store-backend-test-XXXXXX";
  int fd = ::mkstemp(spooled.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  writeFile(spooled, "from tmpfs");
  auto outcome = backend->publish("x/y/z.sym", spooled, false);
  ASSERT_TRUE(bool(outcome)) << llvm::toString(outcome.takeError());
  EXPECT_EQ(*outcome, PublishOutcome::Published);
  EXPECT_EQ(readFile(root + "/x/y/z.sym"), "from tmpfs");
  EXPECT_FALSE(exists(spooled));
  EXPECT_TRUE(backend->listNames(".incoming")->empty());
}

// Two servers publishing one key at once without --replace: exactly one
// wins, the other sees Conflict (other bytes) or Same (the same bytes), and
// the file holds the winner's bytes.
TEST_F(DirectoryBackendTest, ConcurrentPublishersWithoutReplaceOneWins) {
  auto second = openStoreBackend(root, StoreBackendSettings{});
  ASSERT_TRUE(bool(second));
  for (int round = 0; round < 200; ++round) {
    std::string key = "race/" + std::to_string(round) + "/f.sym";
    std::string spooled_a = spool("bytes of A " + std::to_string(round));
    std::string spooled_b = spool("bytes of B, longer " + std::to_string(round));
    PublishOutcome outcome_a{}, outcome_b{};
    std::atomic<bool> go{false};
    std::thread a([&] {
      while (!go)
        std::this_thread::yield();
      outcome_a = *backend->publish(key, spooled_a, false);
    });
    std::thread b([&] {
      while (!go)
        std::this_thread::yield();
      outcome_b = *(*second)->publish(key, spooled_b, false);
    });
    go = true;
    a.join();
    b.join();
    std::string stored = readFile(root + "/" + key);
    if (outcome_a == PublishOutcome::Published) {
      EXPECT_EQ(outcome_b, PublishOutcome::Conflict) << round;
      EXPECT_EQ(stored, "bytes of A " + std::to_string(round));
    } else {
      EXPECT_EQ(outcome_a, PublishOutcome::Conflict) << round;
      EXPECT_EQ(outcome_b, PublishOutcome::Published) << round;
      EXPECT_EQ(stored, "bytes of B, longer " + std::to_string(round));
    }
  }
  EXPECT_TRUE(backend->listNames(".incoming")->empty());
}

// While a key is published and replaced over and over, a reader opening it
// sees nothing, or one whole version, never a mix or a part.
TEST_F(DirectoryBackendTest, AReaderNeverSeesAPartialFile) {
  const std::string key = "big/ID/big.sym";
  const size_t size = 1 << 20;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int round = 0; round < 60; ++round)
      publish(key, std::string(size + (round % 2), round % 2 ? 'b' : 'a'), true);
    done = true;
  });
  size_t seen = 0, absent = 0;
  while (!done) {
    auto opened = backend->open(key);
    if (!opened) {
      llvm::consumeError(opened.takeError());
      ++absent;
      continue;
    }
    std::string bytes = readFd(opened->fd);
    ::close(opened->fd);
    ASSERT_EQ(bytes.size(), opened->info.size);
    ASSERT_TRUE(bytes == std::string(size, 'a') || bytes == std::string(size + 1, 'b'))
        << "a partial or mixed file of " << bytes.size() << " bytes";
    ++seen;
  }
  writer.join();
  EXPECT_GT(seen, 0u);
  (void)absent;
}

} // namespace
} // namespace dumpsyms
