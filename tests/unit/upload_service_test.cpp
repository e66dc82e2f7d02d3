// symstore serve's upload side without a socket: UploadService over a
// directory store, fed requests as the HTTP server hands them over. The
// oracles are the bytes sent (a published file is them, byte for byte; a
// refused upload leaves every file of the store as it was) and Breakpad's
// own client, whose answer parsing (regular expressions wanting exactly
// `"name": "value"`) is restated here from its source.
#include "common/gzip/gzip.h"
#include "dump/release/kept_file_identity.h"
#include "server/ingest/upload_checks.h"
#include "server/ingest/upload_service.h"
#include "server/ingest/upload_zip.h"
#include "store/backend/store_backend.h"
#include "store/layout/layout.h"
#include "store/protocols/sym_upload_v2.h"
#include "tests/support/forwarding_backend.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <map>
#include <regex>
#include <sstream>
#include <sys/stat.h>
#include <zip.h>

namespace dumpsyms {
namespace {

const char* kLinuxId = "0123456789ABCDEF0123456789ABCDEF0";
const char* kLinuxPath = "libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym";

std::string linuxSym(const std::string& function = "foo") {
  return std::string("MODULE Linux x86_64 ") + kLinuxId +
         " libfoo.so\n"
         "INFO CODE_ID 67452301EFCDAB8967452301EFCDAB89\n"
         "FILE 0 /src/foo.c\n"
         "FUNC 1000 10 0 " +
         function +
         "\n"
         "1000 10 7 0\n"
         "PUBLIC 2000 0 bar\n";
}

const char* kWindowsPath = "foo.pdb/FEDCBA98765432100123456789ABCDEF1/foo.sym";
std::string windowsSym() {
  return "MODULE windows x86_64 FEDCBA98765432100123456789ABCDEF1 foo.pdb\n"
         "INFO CODE_ID 5F3A1B2C1000 foo.dll\n"
         "PUBLIC 1000 0 main\n";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const std::string& path, const std::string& bytes) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  std::ofstream(path, std::ios::binary) << bytes;
}

// Every file of the store but its own hidden ones (spool, uploads in flight), with its bytes.
std::map<std::string, std::string> storeFiles(const std::string& root) {
  std::map<std::string, std::string> files;
  std::error_code error;
  for (llvm::sys::fs::recursive_directory_iterator it(root, error), end; it != end && !error;
       it.increment(error)) {
    std::string relative = it->path().substr(root.size() + 1);
    if (llvm::StringRef(relative).starts_with(".")) {
      it.no_push();
      continue;
    }
    if (it->type() == llvm::sys::fs::file_type::regular_file)
      files[relative] = readFile(it->path());
  }
  return files;
}

struct ZipEntry {
  std::string name, bytes;
  bool symlink = false;
};

std::string makeZip(const std::vector<ZipEntry>& entries, const std::string& path) {
  int error = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  EXPECT_NE(archive, nullptr);
  std::vector<std::string> keep; // zip_source_buffer borrows until zip_close
  keep.reserve(entries.size());
  for (const ZipEntry& entry : entries) {
    keep.push_back(entry.bytes);
    zip_source_t* source = zip_source_buffer(archive, keep.back().data(), keep.back().size(), 0);
    zip_int64_t index = zip_file_add(archive, entry.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    EXPECT_GE(index, 0) << entry.name;
    if (entry.symlink)
      zip_file_set_external_attributes(archive, zip_uint64_t(index), 0, ZIP_OPSYS_UNIX,
                                       zip_uint32_t(S_IFLNK | 0777) << 16);
  }
  EXPECT_EQ(zip_close(archive), 0);
  return path;
}

// The directory backend, with remove() done here whether or not the
// backend overrides it: what is checked is that ingest asks for it.
class RemovingBackend : public test::ForwardingBackend {
public:
  RemovingBackend(std::unique_ptr<StoreBackend> inner, std::string root)
      : ForwardingBackend(std::move(inner)), root_(std::move(root)) {}
  llvm::Error remove(const std::string& relative) override {
    removed.push_back(relative);
    llvm::sys::fs::remove(root_ + "/" + relative);
    return llvm::Error::success();
  }
  std::vector<std::string> removed;

private:
  std::string root_;
};

class UploadServiceTest : public ::testing::Test {
protected:
  void SetUp() override {
    llvm::SmallString<128> path;
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("upload-service-test", path));
    root = std::string(path);
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("upload-service-bodies", path));
    bodies = std::string(path);
    auto opened = openStoreBackend(root, StoreBackendSettings{});
    ASSERT_TRUE(bool(opened)) << llvm::toString(opened.takeError());
    auto removing = std::make_unique<RemovingBackend>(std::move(*opened), root);
    removing_ = removing.get();
    store = std::move(removing);
  }
  void TearDown() override {
    llvm::sys::fs::remove_directories(root);
    llvm::sys::fs::remove_directories(bodies);
  }

  ServerResponse send(const std::string& method, const std::string& path, ServerRequest request) {
    request.method = method;
    request.path = path;
    auto route = matchUploadRoute(method, path);
    EXPECT_TRUE(route.has_value()) << method << " " << path;
    if (!route)
      return ServerResponse::text(404, "no route");
    UploadService service(*store, settings, counters);
    return service.handle(*route, request);
  }

  // A request whose body (spooled, as the HTTP server leaves it) is `bytes`.
  ServerRequest withBody(const std::string& bytes) {
    ServerRequest request;
    request.body_path = bodies + "/body" + std::to_string(next_body++);
    writeFile(request.body_path, bytes);
    request.body_size = bytes.size();
    return request;
  }

  ServerResponse put(const std::string& relative, const std::string& bytes) {
    return send("PUT", "/" + relative, withBody(bytes));
  }

  ServerRequest form(const std::map<std::string, std::string>& fields,
                     const std::string& file_field, const std::string& file_bytes,
                     const std::string& filename) {
    ServerRequest request;
    for (const auto& [name, value] : fields)
      request.form[name].value = value;
    FormField& file = request.form[file_field];
    file.spool_path = bodies + "/part" + std::to_string(next_body++);
    writeFile(file.spool_path, file_bytes);
    file.size = file_bytes.size();
    file.filename = filename;
    return request;
  }

  ServerResponse tecken(const std::vector<ZipEntry>& entries) {
    std::string zip = makeZip(entries, bodies + "/zip" + std::to_string(next_body++));
    return send("POST", "/upload/", form({}, "symbols.zip", readFile(zip), "symbols.zip"));
  }

  std::string root, bodies;
  std::unique_ptr<StoreBackend> store;
  RemovingBackend* removing_ = nullptr;
  UploadSettings settings;
  UploadCounters counters;
  int next_body = 0;
};

TEST(UploadRoutes, EachProtocolsRequestsAndNothingElse) {
  EXPECT_EQ(matchUploadRoute("POST", "/upload/"), UploadRoute::Tecken);
  EXPECT_EQ(matchUploadRoute("POST", "/symupload"), UploadRoute::BreakpadV1);
  EXPECT_EQ(matchUploadRoute("GET", "/v1/symbols/a.so/ABC:checkStatus"),
            UploadRoute::V2CheckStatus);
  EXPECT_EQ(matchUploadRoute("POST", "/v1/uploads:create"), UploadRoute::V2Create);
  EXPECT_EQ(matchUploadRoute("PUT", "/v1/uploads/0123"), UploadRoute::V2Put);
  EXPECT_EQ(matchUploadRoute("POST", "/v1/uploads/0123:complete"), UploadRoute::V2Complete);
  EXPECT_EQ(matchUploadRoute("PUT", "/a.so/ABC/a.so.sym"), UploadRoute::Put);
  // Breakpad's clients given a URL ending in '/' ask for "//v1/...".
  EXPECT_EQ(matchUploadRoute("GET", "//v1/symbols/a.so/ABC:checkStatus"),
            UploadRoute::V2CheckStatus);
  EXPECT_EQ(matchUploadRoute("POST", "//v1/uploads:create"), UploadRoute::V2Create);
  EXPECT_EQ(matchUploadRoute("POST", "//symupload"), UploadRoute::BreakpadV1);
  EXPECT_EQ(matchUploadRoute("PUT", "//v1/uploads/0123"), UploadRoute::V2Put);
  EXPECT_EQ(matchUploadRoute("PUT", "//tmp/ABC/a.so.sym"), UploadRoute::Put); // refused as absolute
  EXPECT_FALSE(matchUploadRoute("GET", "/a.so/ABC/a.so.sym"));
  EXPECT_FALSE(matchUploadRoute("HEAD", "/upload/"));
  EXPECT_FALSE(matchUploadRoute("POST", "/a.so/ABC/a.so.sym"));
  EXPECT_FALSE(matchUploadRoute("DELETE", "/a.so/ABC/a.so.sym"));
  EXPECT_STREQ(uploadRouteName(UploadRoute::V2Complete), "v2-complete");
}

TEST(SymUploadV2Shapes, AnswersMatchBreakpadsRegularExpressions) {
  // symbol_collector_client.cc: `"name": "([^"]+)"`.
  auto value = [](const std::string& body, const std::string& name) {
    std::smatch match;
    std::regex pattern("\"" + name + "\": \"([^\"]+)\"");
    return std::regex_search(body, match, pattern) ? match[1].str() : std::string("<none>");
  };
  EXPECT_EQ(value(sym_upload_v2::checkStatusAnswer(true), "status"), "FOUND");
  EXPECT_EQ(value(sym_upload_v2::checkStatusAnswer(false), "status"), "MISSING");
  std::string created = sym_upload_v2::createAnswer("http://h:1/v1/uploads/ab?key=t", "ab");
  EXPECT_EQ(value(created, "uploadUrl"), "http://h:1/v1/uploads/ab?key=t");
  EXPECT_EQ(value(created, "uploadKey"), "ab");
  EXPECT_EQ(value(sym_upload_v2::completeAnswer(false), "result"), "OK");
  EXPECT_EQ(value(sym_upload_v2::completeAnswer(true), "result"), "DUPLICATE_DATA");
}

TEST(SymUploadV2Shapes, CompletionReadFromBreakpadsTextAndFromJson) {
  // As Breakpad's CompleteUpload writes it (bare keys, "application/son").
  auto breakpad = sym_upload_v2::parseCompletion(
      "{ symbol_id: {debug_file: \"libfoo.so\", debug_id: \"ABC0\" }, "
      "symbol_upload_type: \"BREAKPAD\" }");
  ASSERT_TRUE(breakpad);
  EXPECT_EQ(breakpad->symbol.debug_file, "libfoo.so");
  EXPECT_EQ(breakpad->symbol.debug_id.str(), "ABC0");
  EXPECT_EQ(breakpad->type, "BREAKPAD");
  // Its Windows client adds metadata and use_async_processing.
  auto windows = sym_upload_v2::parseCompletion(
      "{ symbol_id: {debug_file: \"a.pdb\", debug_id: \"F1\" }, metadata: {product_name: "
      "\"p\"},symbol_upload_type: \"BREAKPAD\", use_async_processing: true }");
  ASSERT_TRUE(windows);
  EXPECT_EQ(windows->symbol.debug_file, "a.pdb");
  auto ours =
      sym_upload_v2::parseCompletion(sym_upload_v2::completionBody({"b.so", DebugId("DEF0")}));
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->symbol.debug_file, "b.so");
  EXPECT_EQ(ours->symbol.debug_id.str(), "DEF0");
  EXPECT_FALSE(sym_upload_v2::parseCompletion("{}"));
  EXPECT_FALSE(sym_upload_v2::parseCompletion("{debug_file: \"x\"}"));
  EXPECT_FALSE(sym_upload_v2::parseCompletion("{debug_file: \"x\", debug_id: \"unterminated}"));
}

TEST_F(UploadServiceTest, PutStoresTheBytesThenIsANoOpThenRefusesOtherBytes) {
  std::string sym = linuxSym();
  ServerResponse first = put(kLinuxPath, sym);
  EXPECT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), sym);
  ServerResponse again = put(kLinuxPath, sym);
  EXPECT_EQ(again.status, 200) << again.body;
  ServerResponse other = put(kLinuxPath, linuxSym("other"));
  EXPECT_EQ(other.status, 409) << other.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), sym);
  settings.replace = true;
  ServerResponse replaced = put(kLinuxPath, linuxSym("other"));
  EXPECT_EQ(replaced.status, 201) << replaced.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym("other"));
  EXPECT_EQ(counters.files_published, 2u);
  EXPECT_EQ(counters.files_same, 1u);
  EXPECT_EQ(counters.refusals, 1u);
}

TEST_F(UploadServiceTest, PutTakesTheIdInAnyCaseAndStoresTheModuleLinesSpelling) {
  std::string lower = "libfoo.so/0123456789abcdef0123456789abcdef0/libfoo.so.sym";
  ServerResponse answer = put(lower, linuxSym());
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());
}

TEST_F(UploadServiceTest, RefusedPutsLeaveTheStoreAsItWas) {
  ASSERT_EQ(put(kLinuxPath, linuxSym()).status, 201);
  auto before = storeFiles(root);
  struct Case {
    std::string path, body;
    int status;
  } cases[] = {
      {"../libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {"libfoo.so/../../x.sym", linuxSym(), 400},
      {"/libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {"libfoo.so\\..\\x/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {"C:/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {"\xc0\xae\xc0\xae/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {".hidden/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      {"libfoo.so//libfoo.so.sym", linuxSym(), 400},
      {std::string(256, 'a') + "/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 400},
      // Misfiled: the MODULE line names another file or id.
      {"libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so.sym", linuxSym(), 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF1/libfoo.so.sym", linuxSym(), 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/other.sym", linuxSym(), 422},
      {"%2e%2e/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym(), 422},
      // Not a symbol file, or one Breakpad's processor calls corrupt.
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", "hello\n", 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", "", 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym",
       linuxSym() + "FUNC zz 1 0 broken\n", 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym() + linuxSym(), 422},
      // Not a .sym: taken only beside its module's .sym (KeptFiles below).
      {"libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so", linuxSym(), 422},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym.idx", "BPSYMIDX", 415},
      {".uploads/0123456789abcdef0123456789abcdef", linuxSym(), 400},
  };
  for (const Case& c : cases) {
    ServerResponse answer = put(c.path, c.body);
    EXPECT_EQ(answer.status, c.status) << c.path << ": " << answer.body;
    EXPECT_EQ(std::count(answer.body.begin(), answer.body.end(), '\n'), 1) << answer.body;
  }
  EXPECT_EQ(storeFiles(root), before);
}

TEST_F(UploadServiceTest, KeptFilesOnlyBesideTheirModulesSymbolFileAndOfItsBuild) {
  // As `symstore upload --protocol put` sends a --keep-binaries store: the
  // .sym files, then the kept files, then the .build-id entries. Kept files
  // are real objects of the build their path names: this test program (an
  // ELF file with a build id) and Breakpad's Windows test program and PDB.
  std::string elf = readFile("/proc/self/exe");
  auto self = keptFileIdentity("/proc/self/exe", "unit_tests");
  ASSERT_TRUE(bool(self)) << llvm::toString(self.takeError());
  ASSERT_EQ(self->ids.size(), 1u);
  std::string dir = "unit_tests/" + self->ids[0] + "/";
  ASSERT_EQ(
      put(dir + "unit_tests.sym", "MODULE Linux x86_64 " + self->ids[0] + " unit_tests\n").status,
      201);
  ASSERT_EQ(put(kLinuxPath, linuxSym()).status, 201);
  ASSERT_EQ(put(kWindowsPath, windowsSym()).status, 201);
  EXPECT_EQ(put(dir + "unit_tests", elf).status, 201);
  EXPECT_EQ(put(dir + "unit_tests", elf).status, 200);
  EXPECT_EQ(put(dir + "unit_tests.debug", elf + "debug").status, 201);
  EXPECT_EQ(put(dir + "unit_tests", elf + "other").status, 409);
  EXPECT_EQ(readFile(root + "/" + dir + "unit_tests"), elf);
  // A PE at its SSQP path, beside the code-id copy of its .sym; its PDB beside the .sym.
  std::string windows = std::string(DUMPSYMS_SHARED_DIR) + "/windows/";
  std::string pdb_dir = "dump_syms_regtest64.pdb/72E103A85CB249078B76B2E7C06257B13/";
  ASSERT_EQ(put(pdb_dir + "dump_syms_regtest64.sym", readFile(windows + "dump_syms_regtest64.sym"))
                .status,
            201);
  EXPECT_EQ(put("dump_syms_regtest64.exe/589DFD111A000/dump_syms_regtest64.exe",
                readFile(windows + "dump_syms_regtest64.exe"))
                .status,
            201);
  EXPECT_EQ(put(pdb_dir + "dump_syms_regtest64.pdb", readFile(windows + "dump_syms_regtest64.pdb"))
                .status,
            201);
  // The build-id entry, once what it names is there.
  std::string entry = formatBuildIdEntry({dir + "unit_tests", dir + "unit_tests.debug"});
  std::string index =
      buildIdIndexRelativePath(*BuildId::parseHex("67452301efcdab8967452301efcdab89"));
  ServerResponse answer = put(index, entry);
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(readFile(root + "/" + index), entry);

  auto before = storeFiles(root);
  std::string linux_dir = "libfoo.so/0123456789ABCDEF0123456789ABCDEF0/";
  struct Case {
    std::string path, body;
    int status;
    std::string says; // in the one-line reason
  } refused[] = {
      {"libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so", elf, 422, "no symbol file"},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF1/libfoo.so", elf, 422, "no symbol file"},
      // Beside a .sym, but another build's file, or no object at all.
      {linux_dir + "libfoo.so", elf, 422, self->ids[0]},
      {linux_dir + "libfoo.so.debug", "debug bytes", 422, "not an ELF, PE, PDB or Mach-O"},
      {std::string("foo.pdb/FEDCBA98765432100123456789ABCDEF1/") + "foo.pdb",
       readFile(windows + "dump_syms_regtest64.pdb"), 422, "72E103A85CB249078B76B2E7C06257B13"},
      {"libfoo.so/libfoo.so", elf, 415, ""},
      {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/x/libfoo.so", elf, 415, ""},
      {"bar.dll/5F3A1B2C1000/bar.dll", "MZ", 422, ""},
      {buildIdIndexRelativePath(*BuildId::parseHex("00112233")),
       formatBuildIdEntry({"libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so", ""}), 422, ""},
      {buildIdIndexRelativePath(*BuildId::parseHex("00112233")), "rm -rf /\n", 422, ""},
      {".build-id/00/112233/x", entry, 400, ""},
      {".build-id/../x", entry, 400, ""},
      {".build-id/00/11223G", entry, 400, ""},
      {".build-id/00/112233", "executable ../../etc/passwd\n", 422, ""},
  };
  for (const Case& c : refused) {
    ServerResponse refusal = put(c.path, c.body);
    EXPECT_EQ(refusal.status, c.status) << c.path << ": " << refusal.body;
    EXPECT_NE(refusal.body.find(c.says), std::string::npos) << c.path << ": " << refusal.body;
    EXPECT_EQ(std::count(refusal.body.begin(), refusal.body.end(), '\n'), 1) << refusal.body;
  }
  EXPECT_EQ(storeFiles(root), before);
}

TEST_F(UploadServiceTest, GzipPutBodiesAreInflatedWithACap) {
  auto gzipped = gzipCompress(linuxSym());
  ASSERT_TRUE(bool(gzipped));
  ServerRequest request = withBody(*gzipped);
  request.headers["content-encoding"] = "gzip";
  ServerResponse answer = send("PUT", std::string("/") + kLinuxPath, request);
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());

  // A bomb: 64 MiB of one byte, far past 100 times its compressed size.
  auto before = storeFiles(root);
  std::string bomb_text = linuxSym() + std::string(64 << 20, 'x');
  auto bomb = gzipCompress(bomb_text);
  ASSERT_TRUE(bool(bomb));
  settings.replace = true;
  request = withBody(*bomb);
  request.headers["content-encoding"] = "gzip";
  answer = send("PUT", std::string("/") + kLinuxPath, request);
  EXPECT_EQ(answer.status, 413) << answer.body;
  EXPECT_NE(answer.body.find("is over the limit of"), std::string::npos) << answer.body;
  request = withBody("not gzip at all");
  request.headers["content-encoding"] = "gzip";
  EXPECT_EQ(send("PUT", std::string("/") + kLinuxPath, request).status, 400);
  request = withBody(linuxSym());
  request.headers["content-encoding"] = "br";
  EXPECT_EQ(send("PUT", std::string("/") + kLinuxPath, request).status, 415);
  EXPECT_EQ(storeFiles(root), before);
}

TEST_F(UploadServiceTest, AWindowsModuleAlsoGetsItsCodeIdCopy) {
  ServerResponse answer = put(kWindowsPath, windowsSym());
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(readFile(root + "/" + kWindowsPath), windowsSym());
  EXPECT_EQ(readFile(root + "/foo.dll/5F3A1B2C1000/foo.dll.sym"), windowsSym());
}

TEST_F(UploadServiceTest, ANullDebugIdIsFiledByCodeId) {
  std::string sym = "MODULE windows x86_64 000000000000000000000000000000000 app.exe\n"
                    "INFO CODE_ID 5F3A1B2C4000 app.exe\n"
                    "PUBLIC 1000 0 main\n";
  EXPECT_EQ(put("app.exe/000000000000000000000000000000000/app.exe.sym", sym).status, 422);
  ServerResponse answer = put("app.exe/5F3A1B2C4000/app.exe.sym", sym);
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(readFile(root + "/app.exe/5F3A1B2C4000/app.exe.sym"), sym);
}

TEST_F(UploadServiceTest, BreakpadV1FormsAtBothPaths) {
  std::map<std::string, std::string> fields = {{"os", "Linux"},
                                               {"cpu", "x86_64"},
                                               {"debug_file", "libfoo.so"},
                                               {"code_file", "libfoo.so"},
                                               {"debug_identifier", kLinuxId}};
  ServerResponse answer =
      send("POST", "/symupload", form(fields, "symbol_file", linuxSym(), "libfoo.so.sym"));
  EXPECT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());
  answer = send("POST", "/upload/", form(fields, "symbol_file", linuxSym(), "x"));
  EXPECT_EQ(answer.status, 200) << answer.body; // the same bytes: still 200 for Breakpad
  fields["debug_identifier"] = "0123456789ABCDEF0123456789ABCDEF1";
  answer = send("POST", "/symupload", form(fields, "symbol_file", linuxSym(), "x"));
  EXPECT_EQ(answer.status, 422) << answer.body;
  fields.erase("debug_file");
  answer = send("POST", "/symupload", form(fields, "symbol_file", linuxSym(), "x"));
  EXPECT_EQ(answer.status, 400) << answer.body;
}

TEST_F(UploadServiceTest, TeckenZipPublishesEveryEntryAndAnswersAsTecken) {
  ServerResponse answer =
      tecken({{kLinuxPath, linuxSym()}, {kWindowsPath, windowsSym()}, {"libfoo.so/", ""}});
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_NE(answer.body.find("\"upload\""), std::string::npos) << answer.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());
  EXPECT_EQ(readFile(root + "/" + kWindowsPath), windowsSym());
  answer = tecken({{kLinuxPath, linuxSym()}});
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_NE(answer.body.find("\"skipped_keys\":[\"" + std::string(kLinuxPath)), std::string::npos)
      << answer.body;
  // The zip as the whole body rather than a form's file part.
  std::string zip = makeZip({{kWindowsPath, windowsSym()}}, bodies + "/raw.zip");
  answer = send("POST", "/upload/", withBody(readFile(zip)));
  EXPECT_EQ(answer.status, 201) << answer.body;
  EXPECT_NE(answer.body.find("\"skipped_keys\":[\"" + std::string(kWindowsPath)), std::string::npos)
      << answer.body;
}

TEST_F(UploadServiceTest, OneBadZipEntryRefusesTheWholeZip) {
  auto before = storeFiles(root);
  std::string good = "libgood.so/0123456789ABCDEF0123456789ABCDEF0/libgood.so.sym";
  std::string good_sym = "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 libgood.so\n";
  struct Case {
    const char* what;
    ZipEntry bad;
    int status;
  } cases[] = {
      {"zip-slip", {"../../evil/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym()}, 400},
      {"absolute", {"/tmp/0123456789ABCDEF0123456789ABCDEF0/libfoo.so.sym", linuxSym()}, 400},
      {"backslash", {"..\\..\\libfoo.so.sym", linuxSym()}, 400},
      {"symlink", {kLinuxPath, "/etc/passwd", true}, 400},
      {"misfiled", {"libbar.so/0123456789ABCDEF0123456789ABCDEF0/libbar.so.sym", linuxSym()}, 422},
      {"not a sym", {"libfoo.so/0123456789ABCDEF0123456789ABCDEF0/libfoo.so", linuxSym()}, 415},
      {"corrupt", {kLinuxPath, "MODULE\n"}, 422},
      {"bomb", {kLinuxPath, linuxSym() + std::string(200 << 20, '\n')}, 413},
      {"one file twice",
       {"libgood.so/0123456789abcdef0123456789abcdef0/libgood.so.sym", good_sym + "PUBLIC 1 0 x\n"},
       400},
  };
  for (const Case& c : cases) {
    ServerResponse answer = tecken({{good, good_sym}, c.bad});
    EXPECT_EQ(answer.status, c.status) << c.what << ": " << answer.body;
    EXPECT_EQ(storeFiles(root), before) << c.what;
  }
  // Other bytes for a key already there refuse the zip before anything is published.
  ASSERT_EQ(put(kLinuxPath, linuxSym()).status, 201);
  before = storeFiles(root);
  ServerResponse answer = tecken({{good, good_sym}, {kLinuxPath, linuxSym("other")}});
  EXPECT_EQ(answer.status, 409) << answer.body;
  EXPECT_EQ(storeFiles(root), before);
  // Not a zip at all.
  answer = send("POST", "/upload/", form({}, "symbols.zip", "PK\x03\x04 nonsense", "s.zip"));
  EXPECT_EQ(answer.status, 400) << answer.body;
  EXPECT_EQ(storeFiles(root), before);
}

TEST_F(UploadServiceTest, ZipCapsOnEntriesAndInflatedBytes) {
  settings.caps.entries = 2;
  auto before = storeFiles(root);
  ServerResponse answer = tecken({{"a/1/a.sym", "x"}, {"b/1/b.sym", "x"}, {"c/1/c.sym", "x"}});
  EXPECT_EQ(answer.status, 413) << answer.body;
  settings.caps = InflateCaps{};
  settings.caps.entry_bytes = 100;
  answer = tecken({{kLinuxPath, linuxSym() + std::string(200, ' ')}});
  EXPECT_EQ(answer.status, 413) << answer.body;
  EXPECT_EQ(storeFiles(root), before);
}

TEST_F(UploadServiceTest, SymUploadV2AsBreakpadsClientSendsIt) {
  ServerRequest check;
  std::string status_path = std::string("/v1/symbols/libfoo.so/") + kLinuxId + ":checkStatus";
  EXPECT_NE(send("GET", "/" + status_path, check).body.find("\"status\": \"MISSING\""),
            std::string::npos);
  ServerResponse status = send("GET", status_path, check);
  EXPECT_EQ(status.status, 200);
  EXPECT_NE(status.body.find("\"status\": \"MISSING\""), std::string::npos) << status.body;

  ServerRequest create;
  create.headers["host"] = "127.0.0.1:8080";
  create.query["key"] = "s3cret token";
  ServerResponse created = send("POST", "/v1/uploads:create", create);
  ASSERT_EQ(created.status, 200) << created.body;
  std::smatch url, key;
  ASSERT_TRUE(std::regex_search(created.body, url, std::regex("\"uploadUrl\": \"([^\"]+)\"")));
  ASSERT_TRUE(std::regex_search(created.body, key, std::regex("\"uploadKey\": \"([^\"]+)\"")));
  std::string prefix = "http://127.0.0.1:8080";
  ASSERT_EQ(url[1].str().substr(0, prefix.size()), prefix);
  std::string put_target = url[1].str().substr(prefix.size());
  EXPECT_EQ(put_target, "/v1/uploads/" + key[1].str() + "?key=s3cret%20token");

  ServerResponse sent =
      send("PUT", put_target.substr(0, put_target.find('?')), withBody(linuxSym()));
  EXPECT_EQ(sent.status, 200) << sent.body; // Breakpad wants exactly 200
  EXPECT_TRUE(storeFiles(root).empty()) << "nothing is published before :complete";

  std::string body = std::string("{ symbol_id: {debug_file: \"libfoo.so\", debug_id: \"") +
                     kLinuxId + "\" }, symbol_upload_type: \"BREAKPAD\" }";
  ServerResponse done = send("POST", "/v1/uploads/" + key[1].str() + ":complete", withBody(body));
  EXPECT_EQ(done.status, 200) << done.body;
  EXPECT_NE(done.body.find("\"result\": \"OK\""), std::string::npos) << done.body;
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());
  EXPECT_EQ(removing_->removed, std::vector<std::string>{".uploads/" + key[1].str()});
  EXPECT_FALSE(llvm::sys::fs::exists(root + "/.uploads/" + key[1].str()));

  status = send("GET", status_path, check);
  EXPECT_NE(status.body.find("\"status\": \"FOUND\""), std::string::npos) << status.body;

  // The same bytes again: DUPLICATE_DATA.
  created = send("POST", "/v1/uploads:create", create);
  ASSERT_TRUE(std::regex_search(created.body, key, std::regex("\"uploadKey\": \"([^\"]+)\"")));
  std::string again_key = key[1].str();
  EXPECT_EQ(send("PUT", "/v1/uploads/" + again_key, withBody(linuxSym())).status, 200);
  done = send("POST", "/v1/uploads/" + again_key + ":complete", withBody(body));
  EXPECT_NE(done.body.find("\"result\": \"DUPLICATE_DATA\""), std::string::npos) << done.body;

  // A completion naming another module, or an unknown key.
  created = send("POST", "/v1/uploads:create", create);
  ASSERT_TRUE(std::regex_search(created.body, key, std::regex("\"uploadKey\": \"([^\"]+)\"")));
  std::string third = key[1].str();
  EXPECT_EQ(send("PUT", "/v1/uploads/" + third, withBody(linuxSym("other"))).status, 200);
  std::string wrong = "{ symbol_id: {debug_file: \"libbar.so\", debug_id: \"" +
                      std::string(kLinuxId) + "\" }, symbol_upload_type: \"BREAKPAD\" }";
  EXPECT_EQ(send("POST", "/v1/uploads/" + third + ":complete", withBody(wrong)).status, 422);
  EXPECT_EQ(
      send("POST", "/v1/uploads/0123456789abcdef0123456789abcdef:complete", withBody(body)).status,
      404);
  EXPECT_EQ(send("PUT", "/v1/uploads/..", withBody(linuxSym())).status, 404);
  EXPECT_EQ(readFile(root + "/" + kLinuxPath), linuxSym());
}

TEST(UploadChecks, StreamedAndWholeTextAgree) {
  llvm::SmallString<128> path;
  int fd = -1;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("upload-checks", "sym", fd, path));
  ::close(fd);
  // A file larger than one read, with a line past the limit the reader skips.
  std::string text = linuxSym();
  for (int i = 0; i < 200000; ++i)
    text += "STACK CFI INIT " + llvm::utohexstr(0x10000 + i * 16) +
            " 10 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n";
  writeFile(std::string(path), text);
  SymbolFileFacts whole, streamed;
  auto a = checkSymbolText(text, "x", whole);
  auto b = checkSymbolFile(std::string(path), "x", streamed);
  EXPECT_FALSE(a) << a->reason;
  EXPECT_FALSE(b) << b->reason;
  EXPECT_EQ(whole.store_path, kLinuxPath);
  EXPECT_EQ(streamed.store_path, kLinuxPath);
  EXPECT_EQ(streamed.code_id.str(), "67452301EFCDAB8967452301EFCDAB89");
  // A line past limits::kMaxSymbolFileLine, across several reads: skipped by
  // both, so the file is corrupt to both, on the same line.
  std::string overlong =
      linuxSym() + "PUBLIC 3000 0 " + std::string(17 << 20, 'n') + "\n" + "PUBLIC 4000 0 after\n";
  writeFile(std::string(path), overlong);
  a = checkSymbolText(overlong, "x", whole);
  b = checkSymbolFile(std::string(path), "x", streamed);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->status, 422);
  EXPECT_EQ(a->reason, b->reason);
  EXPECT_NE(a->reason.find("line 7"), std::string::npos) << a->reason;
  llvm::sys::fs::remove(path);
}

} // namespace
} // namespace dumpsyms
