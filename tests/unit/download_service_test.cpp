// symstore serve's downloads (server/downloads/): the parsing of what
// clients send (paths, Range, validators, Accept-Encoding) against the RFCs'
// examples, and DownloadService over a directory store: every route, the
// spellings clients use, 304/206/416/302/404, gzip inflated again by zlib.
#include "server/downloads/accept_encoding.h"
#include "server/downloads/byte_range.h"
#include "server/downloads/code_id_redirect.h"
#include "server/downloads/download_routes.h"
#include "server/downloads/download_service.h"
#include "server/downloads/http_validators.h"
#include "server/downloads/symbol_file_header.h"
#include "store/backend/directory_backend.h"
#include "store/layout/layout.h"
#include "tests/support/elf_builder.h"

#include <fstream>
#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <thread>
#include <unistd.h>
#include <zlib.h>

namespace dumpsyms {
namespace {

TEST(DownloadRoutes, Shapes) {
  DownloadRoute route = parseDownloadRoute("/app.pdb/ABC1/app.sym");
  EXPECT_EQ(route.kind, DownloadRoute::Kind::StoreFile);
  EXPECT_EQ(route.components, (std::vector<std::string>{"app.pdb", "ABC1", "app.sym"}));
  route = parseDownloadRoute("/buildid/ABCDEF01/debuginfo");
  EXPECT_EQ(route.kind, DownloadRoute::Kind::Debuginfod);
  EXPECT_EQ(route.build_id.hex(), "abcdef01");
  EXPECT_EQ(route.artifact, DownloadRoute::Artifact::Debuginfo);
  route = parseDownloadRoute("/_.debug/ELF-BUILDID-SYM-ABCDEF01/_.debug");
  EXPECT_EQ(route.kind, DownloadRoute::Kind::Debuginfod);
  EXPECT_EQ(route.artifact, DownloadRoute::Artifact::Debuginfo);
  EXPECT_EQ(route.build_id.hex(), "abcdef01");
  EXPECT_TRUE(route.ssqp);
  route = parseDownloadRoute("/libx.so/elf-buildid-abcdef01/libx.so");
  EXPECT_EQ(route.artifact, DownloadRoute::Artifact::Executable);
  EXPECT_TRUE(route.ssqp);
  EXPECT_EQ(parseDownloadRoute("/libx.so/elf-buildid-abcdef01/other").kind,
            DownloadRoute::Kind::StoreFile);
  EXPECT_EQ(parseDownloadRoute("/x/elf-buildid-sym-abc/_.debug").kind,
            DownloadRoute::Kind::StoreFile);
  route = parseDownloadRoute("/buildid/abcdef01/executable");
  EXPECT_EQ(route.artifact, DownloadRoute::Artifact::Executable);
  route = parseDownloadRoute("/buildid/abcdef01/section/.debug_info");
  EXPECT_EQ(route.artifact, DownloadRoute::Artifact::Section);
  EXPECT_EQ(route.section, ".debug_info");
  for (const char* path : {"", "/", "/a/b", "/a/b/c/d", "/a//b", "//a/b", "/buildid/abc/debuginfo",
                           "/buildid/xyz1/debuginfo", "/buildid/ab/section/", "/buildid/ab/source"})
    EXPECT_EQ(parseDownloadRoute(path).kind == DownloadRoute::Kind::Debuginfod, false) << path;
  EXPECT_EQ(parseDownloadRoute("/a//b").kind,
            DownloadRoute::Kind::StoreFile); // isSafeRelativePath refuses it later
  EXPECT_EQ(parseDownloadRoute("/a/b/c/d").kind, DownloadRoute::Kind::NotARoute);
}

TEST(ByteRanges, Rfc9110Forms) {
  auto partial = [](const std::string& header, uint64_t size, uint64_t first, uint64_t length) {
    ByteRange range = parseByteRange(header, size);
    EXPECT_EQ(range.kind, ByteRange::Kind::Partial) << header;
    EXPECT_EQ(range.first, first) << header;
    EXPECT_EQ(range.length, length) << header;
  };
  partial("bytes=0-499", 10000, 0, 500);
  partial("bytes=500-999", 10000, 500, 500);
  partial("bytes=-500", 10000, 9500, 500);
  partial("bytes=9500-", 10000, 9500, 500);
  partial("bytes=0-0", 10000, 0, 1);
  partial("bytes=9999-20000", 10000, 9999, 1); // the end clipped to the file
  partial("bytes=-20000", 100, 0, 100);
  EXPECT_EQ(contentRange(parseByteRange("bytes=500-999", 10000), 10000), "bytes 500-999/10000");
  for (const char* header : {"", "bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=a-b",
                             "bytes=", "bytes=+1-2", "bytes=1"})
    EXPECT_EQ(parseByteRange(header, 100).kind, ByteRange::Kind::Whole) << header;
  EXPECT_EQ(parseByteRange("bytes=100-", 100).kind, ByteRange::Kind::Unsatisfiable);
  EXPECT_EQ(parseByteRange("bytes=-0", 100).kind, ByteRange::Kind::Unsatisfiable);
  EXPECT_EQ(parseByteRange("bytes=0-", 0).kind, ByteRange::Kind::Unsatisfiable);
}

TEST(HttpValidators, DatesAndTags) {
  // RFC 9110's own example date.
  EXPECT_EQ(formatHttpDate(784111777), "Sun, 06 Nov 1994 08:49:37 GMT");
  EXPECT_EQ(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), std::optional<int64_t>(784111777));
  EXPECT_EQ(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parseHttpDate("Sun, 06 Nov 1994 08:49:37"), std::nullopt);
  EXPECT_EQ(parseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_TRUE(ifNoneMatchMatches("\"a\"", "\"a\""));
  EXPECT_TRUE(ifNoneMatchMatches("W/\"a\"", "\"a\""));
  EXPECT_TRUE(ifNoneMatchMatches("\"x\", \"a\"", "\"a\""));
  EXPECT_TRUE(ifNoneMatchMatches("*", "\"a\""));
  EXPECT_TRUE(ifNoneMatchMatches("\"a-gzip\"", "\"a\"", "\"a-gzip\""));
  EXPECT_FALSE(ifNoneMatchMatches("\"b\"", "\"a\""));
  // If-None-Match wins over If-Modified-Since.
  EXPECT_FALSE(isNotModified("\"b\"", "Sun, 06 Nov 1994 08:49:37 GMT", "\"a\"", "", 784111777));
  EXPECT_TRUE(isNotModified("", "Sun, 06 Nov 1994 08:49:37 GMT", "\"a\"", "", 784111777));
  EXPECT_FALSE(isNotModified("", "Sun, 06 Nov 1994 08:49:36 GMT", "\"a\"", "", 784111777));
  EXPECT_FALSE(isNotModified("", "yesterday", "\"a\"", "", 784111777));
  EXPECT_TRUE(ifRangeHolds("", "\"a\"", 0));
  EXPECT_TRUE(ifRangeHolds("\"a\"", "\"a\"", 0));
  EXPECT_FALSE(ifRangeHolds("W/\"a\"", "\"a\"", 0));
  EXPECT_FALSE(ifRangeHolds("\"b\"", "\"a\"", 0));
}

TEST(AcceptEncoding, Gzip) {
  EXPECT_TRUE(acceptsGzip("gzip"));
  EXPECT_TRUE(acceptsGzip("deflate, gzip;q=1.0, *;q=0.5"));
  EXPECT_TRUE(acceptsGzip("x-gzip"));
  EXPECT_TRUE(acceptsGzip("*"));
  EXPECT_TRUE(acceptsGzip("GZIP ; q=0.1"));
  EXPECT_FALSE(acceptsGzip(""));
  EXPECT_FALSE(acceptsGzip("identity"));
  EXPECT_FALSE(acceptsGzip("gzip;q=0"));
  EXPECT_FALSE(acceptsGzip("*;q=0.5, gzip;q=0"));
  EXPECT_FALSE(acceptsGzip("br, deflate"));
}

TEST(CodeIdRedirect, LocationsAndHeaders) {
  EXPECT_EQ(locationOf("app.pdb/ABC1/app.sym"), "/app.pdb/ABC1/app.sym");
  // Names with spaces, percent signs or non-ASCII bytes stay one path.
  EXPECT_EQ(locationOf("my app.pdb/ABC1/50%.sym"), "/my%20app.pdb/ABC1/50%25.sym");
  EXPECT_EQ(locationOf("\xc3\xa9.so/ID/x?.sym"), "/%C3%A9.so/ID/x%3F.sym");
  auto header = parseSymbolFileHeader("MODULE windows x86_64 ABC1 my app.pdb\r\nINFO x\n");
  ASSERT_TRUE(bool(header));
  EXPECT_EQ(header->debug_id.str(), "ABC1");
  EXPECT_EQ(header->debug_file, "my app.pdb");
  for (const char* not_one :
       {"MODULE windows x86_64 ABC1", "MODULE windows x86_64\n", "FUNC 0 0 0 f\n"}) {
    auto refused = parseSymbolFileHeader(not_one);
    EXPECT_FALSE(bool(refused)) << not_one;
    llvm::consumeError(refused.takeError());
  }
}

// A directory store and a service over it.
class DownloadServiceTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("download-test", path));
    root_ = std::string(path);
    store_dir_ = root_ + "/store";
    cache_dir_ = root_ + "/cache";
    llvm::sys::fs::create_directories(store_dir_);
  }
  void TearDown() override {
    service_.reset();
    backend_.reset();
    llvm::sys::fs::remove_directories(root_);
  }

  void put(const std::string& relative, const std::string& bytes) {
    std::string path = store_dir_ + "/" + relative;
    llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
    std::ofstream(path, std::ios::binary) << bytes;
  }
  DownloadService& service() {
    if (!service_) {
      auto backend = openDirectoryBackend(store_dir_);
      EXPECT_TRUE(static_cast<bool>(backend)) << llvm::toString(backend.takeError());
      backend_ = std::move(*backend);
      service_ = std::make_unique<DownloadService>(*backend_, cache_dir_);
    }
    return *service_;
  }
  ServerResponse get(const std::string& path, std::map<std::string, std::string> headers = {}) {
    ServerRequest request;
    request.method = "GET";
    request.path = path;
    request.headers = std::move(headers);
    return service().handle(request);
  }
  // The body the server would send: the string, or the file descriptor's part.
  static std::string body(ServerResponse& response) {
    if (response.fd < 0)
      return response.body;
    std::string bytes(response.fd_length, '\0');
    EXPECT_EQ(::pread(response.fd, bytes.data(), bytes.size(), response.fd_offset),
              static_cast<ssize_t>(bytes.size()));
    ::close(response.fd);
    response.fd = -1;
    return bytes;
  }
  static std::string header(const ServerResponse& response, const std::string& name) {
    for (const auto& [key, value] : response.headers)
      if (llvm::StringRef(key).equals_insensitive(name))
        return value;
    return "";
  }

  std::string root_, store_dir_, cache_dir_;
  std::unique_ptr<StoreBackend> backend_;
  std::unique_ptr<DownloadService> service_;
};

const char kPdbId[] = "0123456789ABCDEF0123456789ABCDEF1";
const char kAppSym[] = "MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 app.pdb\n"
                       "INFO CODE_ID 5F3A1B2C4000 app.exe\nPUBLIC 1000 0 main\n";

TEST_F(DownloadServiceTest, BreakpadPathAndItsSpellings) {
  put(std::string("app.pdb/") + kPdbId + "/app.sym", kAppSym);
  ServerResponse response = get(std::string("/app.pdb/") + kPdbId + "/app.sym");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.route, "breakpad");
  EXPECT_EQ(header(response, "Content-Type"), "text/plain");
  EXPECT_FALSE(header(response, "ETag").empty());
  EXPECT_EQ(header(response, "Vary"), "Accept-Encoding");
  EXPECT_EQ(body(response), kAppSym);
  // The id lower-cased (Breakpad's processor asks it upper-case, others not).
  response = get(std::string("/app.pdb/") + llvm::StringRef(kPdbId).lower() + "/app.sym");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), kAppSym);
  // The id and the file name in another case.
  response = get(std::string("/app.pdb/") + llvm::StringRef(kPdbId).lower() + "/App.Sym");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), kAppSym);
  // A .sym's module name is matched as asked (Breakpad's clients send it as
  // the module has it; a miss must not list the store's top level).
  EXPECT_EQ(get(std::string("/APP.PDB/") + kPdbId + "/app.sym").status, 404);
  // Missing: 404 with one line, never 403.
  for (const char* path : {"/app.pdb/0000/app.sym", "/nothing/ID/nothing.sym", "/", "/a/b",
                           "/../app.pdb/x", "/app.pdb/../app.pdb", "/.build-id/ab/cd",
                           "/.incoming/x/y", "/app.pdb//app.sym", "/app.pdb/./app.sym"}) {
    response = get(path);
    EXPECT_EQ(response.status, 404) << path;
    EXPECT_EQ(response.body, "no such file in the store\n") << path;
  }
}

TEST_F(DownloadServiceTest, ConditionalRangesAndGzip) {
  std::string text = kAppSym;
  for (int i = 0; i < 2000; ++i)
    text += "PUBLIC " + std::to_string(0x2000 + i * 16) + " 0 function_" + std::to_string(i) + "\n";
  put(std::string("app.pdb/") + kPdbId + "/app.sym", text);
  std::string path = std::string("/app.pdb/") + kPdbId + "/app.sym";
  ServerResponse first = get(path);
  std::string etag = header(first, "ETag"), modified = header(first, "Last-Modified");
  body(first);
  ServerResponse response = get(path, {{"if-none-match", etag}});
  EXPECT_EQ(response.status, 304);
  EXPECT_EQ(response.fd, -1);
  EXPECT_EQ(get(path, {{"if-modified-since", modified}}).status, 304);
  EXPECT_EQ(get(path, {{"if-modified-since", "Sun, 06 Nov 1994 08:49:37 GMT"}}).status, 200);

  response = get(path, {{"range", "bytes=100-199"}});
  EXPECT_EQ(response.status, 206);
  EXPECT_EQ(header(response, "Content-Range"), "bytes 100-199/" + std::to_string(text.size()));
  EXPECT_EQ(body(response), text.substr(100, 100));
  response = get(path, {{"range", "bytes=-10"}});
  EXPECT_EQ(body(response), text.substr(text.size() - 10));
  response = get(path, {{"range", "bytes=0-1,5-6"}});
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), text);
  response = get(path, {{"range", "bytes=" + std::to_string(text.size()) + "-"}});
  EXPECT_EQ(response.status, 416);
  EXPECT_EQ(header(response, "Content-Range"), "bytes */" + std::to_string(text.size()));
  // If-Range with another tag: the whole file.
  response = get(path, {{"range", "bytes=0-9"}, {"if-range", "\"other\""}});
  EXPECT_EQ(response.status, 200);
  body(response);

  for (int round = 0; round < 2; ++round) {
    response = get(path, {{"accept-encoding", "gzip, deflate"}});
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(header(response, "Content-Encoding"), "gzip");
    EXPECT_NE(header(response, "ETag"), etag);
    std::string compressed = body(response);
    EXPECT_LT(compressed.size(), text.size() / 3);
    // zlib inflates it (windowBits 15 + 16: a gzip member).
    z_stream stream{};
    ASSERT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
    std::string inflated(text.size() + 16, '\0');
    stream.next_in = reinterpret_cast<Bytef*>(compressed.data());
    stream.avail_in = static_cast<uInt>(compressed.size());
    stream.next_out = reinterpret_cast<Bytef*>(inflated.data());
    stream.avail_out = static_cast<uInt>(inflated.size());
    EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
    inflated.resize(stream.total_out);
    inflateEnd(&stream);
    EXPECT_EQ(inflated, text);
  }
  // Compressed once: one copy in the cache, whatever the number of requests.
  size_t copies = 0;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(cache_dir_, error), end; it != end && !error;
       it.increment(error))
    copies += it->type() == llvm::sys::fs::file_type::regular_file;
  EXPECT_EQ(copies, 1u);
  // The gzip copy's tag also validates.
  response = get(path, {{"accept-encoding", "gzip"}});
  std::string gzip_etag = header(response, "ETag");
  body(response);
  EXPECT_EQ(get(path, {{"accept-encoding", "gzip"}, {"if-none-match", gzip_etag}}).status, 304);
  // Ranges are served from the identity bytes.
  response = get(path, {{"accept-encoding", "gzip"}, {"range", "bytes=0-9"}});
  EXPECT_EQ(response.status, 206);
  EXPECT_EQ(header(response, "Content-Encoding"), "");
  EXPECT_EQ(body(response), text.substr(0, 10));
}

// Requests racing for a copy nobody has made yet all get the same bytes,
// and the cache ends with one copy.
TEST_F(DownloadServiceTest, GzipCopyMadeOnceUnderConcurrency) {
  std::string text = kAppSym;
  for (int i = 0; i < 20000; ++i)
    text += "PUBLIC " + std::to_string(0x2000 + i * 16) + " 0 f" + std::to_string(i) + "\n";
  put(std::string("app.pdb/") + kPdbId + "/app.sym", text);
  std::string path = std::string("/app.pdb/") + kPdbId + "/app.sym";
  service();
  std::vector<std::string> bodies(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < bodies.size(); ++i)
    threads.emplace_back([&, i] {
      ServerResponse response = get(path, {{"accept-encoding", "gzip"}});
      bodies[i] = header(response, "Content-Encoding") + ":" + body(response);
    });
  for (std::thread& thread : threads)
    thread.join();
  for (const std::string& one : bodies)
    EXPECT_EQ(one, bodies[0]);
  EXPECT_TRUE(llvm::StringRef(bodies[0]).starts_with("gzip:"));
  size_t files = 0;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(cache_dir_, error), end; it != end && !error;
       it.increment(error))
    files += it->type() == llvm::sys::fs::file_type::regular_file;
  EXPECT_EQ(files, 1u);
}

// Bytes that gzip cannot shrink are sent as they are.
TEST_F(DownloadServiceTest, IncompressibleBytesSentAsTheyAre) {
  std::string noise(100000, '\0');
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (char& c : noise) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    c = static_cast<char>(state);
  }
  put("app.exe/5F3A1B2C4000/app.exe", noise);
  for (int round = 0; round < 2; ++round) {
    ServerResponse response = get("/app.exe/5F3A1B2C4000/app.exe", {{"accept-encoding", "gzip"}});
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(header(response, "Content-Encoding"), "");
    EXPECT_EQ(header(response, "Vary"), "Accept-Encoding");
    EXPECT_EQ(body(response), noise);
  }
}

TEST_F(DownloadServiceTest, CodeIdRedirects) {
  std::string debug_path = std::string("app.pdb/") + kPdbId + "/app.sym";
  put(debug_path, kAppSym);
  put("app.exe/5F3A1B2C4000/app.exe.sym", kAppSym); // the code-id index entry (a copy)
  for (const char* path : {"/app.exe/5F3A1B2C4000/app.exe.sym", "/app.exe/5F3A1B2C4000/app.sym",
                           "/app.exe/5f3a1b2c4000/app.sym", "/app.exe/5f3a1b2c4000/APP.EXE.sym"}) {
    ServerResponse response = get(path);
    EXPECT_EQ(response.status, 302) << path;
    EXPECT_EQ(response.route, "code-id") << path;
    EXPECT_EQ(header(response, "Location"), "/" + debug_path) << path;
  }
  EXPECT_EQ(get("/app.exe/5F3A1B2C4000/other.sym").status, 404);
  // A module without a debug id lives at its code-id path: served there.
  std::string null_module = "MODULE windows x86_64 000000000000000000000000000000000 "
                            "plain.dll\nINFO CODE_ID 5F3A1B2C9000 plain.dll\n";
  put("plain.dll/5F3A1B2C9000/plain.dll.sym", null_module);
  ServerResponse response = get("/plain.dll/5F3A1B2C9000/plain.dll.sym");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), null_module);
  // An ELF module, whose debug path looks like an index entry, is served.
  std::string elf = "MODULE Linux x86_64 A1B2C3D4E5F60718293A4B5C6D7E8F900 libx.so\n";
  put("libx.so/A1B2C3D4E5F60718293A4B5C6D7E8F900/libx.so.sym", elf);
  response = get("/libx.so/A1B2C3D4E5F60718293A4B5C6D7E8F900/libx.so.sym");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), elf);
}

TEST_F(DownloadServiceTest, DebuginfodAndSsqp) {
  using test_support::ElfSection;
  std::vector<uint8_t> info_bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<uint8_t> debug =
      test_support::elfAround({{".debug_info", llvm::ELF::SHT_PROGBITS, 0, info_bytes},
                               {".text", llvm::ELF::SHT_NOBITS, llvm::ELF::SHF_ALLOC, {}}});
  std::vector<uint8_t> text_bytes(64, 0x90);
  std::vector<uint8_t> executable = test_support::elfAround(
      {{".text", llvm::ELF::SHT_PROGBITS, llvm::ELF::SHF_ALLOC, text_bytes},
       {".bss", llvm::ELF::SHT_NOBITS, llvm::ELF::SHF_ALLOC | llvm::ELF::SHF_WRITE, {}}});
  std::string id = "A1B2C3D4E5F60718293A4B5C6D7E8F900";
  std::string debug_bytes(debug.begin(), debug.end()),
      exe_bytes(executable.begin(), executable.end());
  put(keptFileRelativePath("libx.so", DebugId(id), "libx.so.debug"), debug_bytes);
  put(keptFileRelativePath("libx.so", DebugId(id), "libx.so"), exe_bytes);
  std::string build_id = "d4c3b2a1f6e51807293a4b5c6d7e8f90aabbccdd";
  BuildIdEntry entry{keptFileRelativePath("libx.so", DebugId(id), "libx.so"),
                     keptFileRelativePath("libx.so", DebugId(id), "libx.so.debug")};
  put(buildIdIndexRelativePath(*BuildId::parseHex(build_id)), formatBuildIdEntry(entry));

  ServerResponse response = get("/buildid/" + build_id + "/debuginfo");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.route, "debuginfod");
  EXPECT_EQ(header(response, "Content-Type"), "application/octet-stream");
  EXPECT_EQ(body(response), debug_bytes);
  response = get("/buildid/" + llvm::StringRef(build_id).upper() + "/executable");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), exe_bytes);
  response = get("/buildid/" + build_id + "/section/.debug_info");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), std::string(info_bytes.begin(), info_bytes.end()));
  // .text is NOBITS in the debug file: the executable's bytes.
  response = get("/buildid/" + build_id + "/section/.text");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), std::string(text_bytes.begin(), text_bytes.end()));
  response = get("/buildid/" + build_id + "/section/.text", {{"range", "bytes=2-5"}});
  EXPECT_EQ(response.status, 206);
  EXPECT_EQ(body(response), std::string(4, '\x90'));
  EXPECT_EQ(get("/buildid/" + build_id + "/section/.bss").status, 404);
  EXPECT_EQ(get("/buildid/" + build_id + "/section/.nothing").status, 404);
  EXPECT_EQ(get("/buildid/00112233/debuginfo").status, 404);
  // SSQP's keys for ELF files.
  response = get("/libx.so/elf-buildid-" + build_id + "/libx.so");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.route, "ssqp");
  EXPECT_EQ(body(response), exe_bytes);
  response = get("/_.debug/elf-buildid-sym-" + build_id + "/_.debug");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), debug_bytes);
  EXPECT_EQ(get("/_.debug/elf-buildid-sym-00112233/_.debug").status, 404);
  // The module asked by its code id (the build id): sent to its debug-id path.
  put(symbolFileRelativePath("libx.so", DebugId(id)), "MODULE Linux x86_64 " + id + " libx.so\n");
  response = get("/libx.so/" + build_id + "/libx.so.sym");
  EXPECT_EQ(response.status, 302);
  EXPECT_EQ(header(response, "Location"), "/" + symbolFileRelativePath("libx.so", DebugId(id)));
  EXPECT_EQ(get("/libx.so/" + build_id + "/other.sym").status, 404);
  // An entry longer than an entry can be is not read cut short: its first
  // 4 KiB would still parse as a shorter path.
  std::string long_id = "e4c3b2a1f6e51807293a4b5c6d7e8f90aabbccdd";
  put(buildIdIndexRelativePath(*BuildId::parseHex(long_id)),
      "executable " + keptFileRelativePath("libx.so", DebugId(id), "libx.so") + "\ndebuginfo " +
          keptFileRelativePath("libx.so", DebugId(id), "libx.so.debug") + std::string(5000, 'x') +
          "\n");
  EXPECT_EQ(get("/buildid/" + long_id + "/executable").status, 404);
  EXPECT_EQ(get("/libx.so/" + long_id + "/libx.so.sym").status, 404);

  // SSQP: a PDB and a PE where Microsoft's clients ask, in lower case.
  put(keptFileRelativePath("App.pdb", DebugId(kPdbId), "App.pdb"), "pdb bytes");
  response = get(std::string("/app.pdb/") + llvm::StringRef(kPdbId).lower() + "/app.pdb");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.route, "ssqp");
  EXPECT_EQ(body(response), "pdb bytes");
  put("App.exe/5F3A1B2C4000/App.exe", "pe bytes");
  response = get("/app.exe/5f3a1b2c4000/app.exe");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(body(response), "pe bytes");
  // Where the name as asked is a module of the store, other spellings are
  // not looked for.
  put("app.exe/5F3A1B2C4000/other", "x");
  EXPECT_EQ(get("/app.exe/5f3a1b2c4000/app.exe").status, 404);
  EXPECT_EQ(get("/app.pdb/" + std::string(kPdbId) + "/app.pd_").status, 404);
}

// A kept file that is not a valid ELF image (cut short, a section table
// past its end, not ELF at all) has no sections: 404, never a crash.
TEST_F(DownloadServiceTest, SectionsOfBrokenFiles) {
  using test_support::ElfSection;
  std::vector<uint8_t> good = test_support::elfAround(
      {{".debug_info", llvm::ELF::SHT_PROGBITS, 0, std::vector<uint8_t>(64, 7)}});
  std::vector<std::string> broken = {
      std::string(good.begin(), good.begin() + 40), // cut inside the header
      std::string(good.begin(), good.end() - 100),  // the section table cut off
      std::string("\x7f"
                  "ELF") +
          std::string(60, '\xff'), // nonsense header fields
      "not an ELF file at all"};
  std::string with_far_section(good.begin(), good.end());
  // e_shoff of a 64-bit header at byte 40: past the end of the file.
  for (int i = 0; i < 8; ++i)
    with_far_section[40 + i] = static_cast<char>(0x7f);
  broken.push_back(with_far_section);
  for (size_t i = 0; i < broken.size(); ++i) {
    std::string id = "0102030405060708090A0B0C0D0E0F10" + std::to_string(i);
    std::string build_id = "aabbccdd0" + std::to_string(i);
    put(keptFileRelativePath("bad.so", DebugId(id), "bad.so.debug"), broken[i]);
    put(buildIdIndexRelativePath(*BuildId::parseHex(build_id)),
        formatBuildIdEntry({"", keptFileRelativePath("bad.so", DebugId(id), "bad.so.debug")}));
    EXPECT_EQ(get("/buildid/" + build_id + "/section/.debug_info").status, 404) << i;
    ServerResponse response = get("/buildid/" + build_id + "/debuginfo");
    EXPECT_EQ(response.status, 200) << i; // the file itself is still served as it is
    EXPECT_EQ(body(response), broken[i]) << i;
  }
}

TEST_F(DownloadServiceTest, LinksOutOfTheStoreAreNotServed) {
  std::ofstream(root_ + "/secret") << "secret";
  llvm::sys::fs::create_directories(store_dir_ + "/a/ID");
  ASSERT_FALSE(llvm::sys::fs::create_link("../../../secret", store_dir_ + "/a/ID/a.sym"));
  EXPECT_EQ(get("/a/ID/a.sym").status, 404);
}

} // namespace
} // namespace dumpsyms
