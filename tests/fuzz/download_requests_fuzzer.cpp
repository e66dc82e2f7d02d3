// What a download client sends symstore serve, read by every parser the
// download side has (server/downloads/, store/layout's path checks,
// server/service/'s tokens). The input is lines, cut at the first NUL each
// as libmicrohttpd hands a handler C strings:
//   0  the path ("HEAD " in front makes the request a HEAD)
//   1  Range                 4  If-Modified-Since
//   2  Accept-Encoding       5  If-Range
//   3  If-None-Match         6  a token (Auth-Token, Bearer, ?key=)
// and the rest, bytes as they are: a .build-id entry, a symbol file's
// first lines, a --tokens file, an ELF file's bytes for the section finder.
// The pure functions get the fields alone; then DownloadService::handle
// answers the request over a small directory store made once (a .sym and
// its code-id index entry, a kept executable and debug file, their
// .build-id entry), and the answer's invariants are checked: never 403, a
// file body inside its file, a 206 only for a Range, a 304 only for a
// conditional request.
#include "server/downloads/accept_encoding.h"
#include "server/downloads/byte_range.h"
#include "server/downloads/code_id_redirect.h"
#include "server/downloads/download_routes.h"
#include "server/downloads/download_service.h"
#include "server/downloads/elf_section_span.h"
#include "server/downloads/http_validators.h"
#include "server/downloads/symbol_file_header.h"
#include "server/service/tokens.h"
#include "store/backend/directory_backend.h"
#include "store/layout/layout.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/elf_builder.h"

#include <cstdlib>
#include <fstream>
#include <llvm/ADT/StringRef.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms::fuzz {
namespace {

// A broken invariant is a crash, which libFuzzer keeps.
void require(bool holds) {
  if (!holds)
    std::abort();
}

const char kDebugId[] = "0123456789ABCDEF0123456789ABCDEF1";
const char kBuildId[] = "d4c3b2a1f6e51807293a4b5c6d7e8f90aabbccdd";
const char kElfId[] = "A1B2C3D4E5F60718293A4B5C6D7E8F900";

struct FuzzStore {
  std::unique_ptr<StoreBackend> backend;
  std::unique_ptr<DownloadService> service;
};

void put(const std::string& root, const std::string& relative, const std::string& bytes) {
  std::string path = root + "/" + relative;
  (void)llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  std::ofstream(path, std::ios::binary) << bytes;
}

// Made once per process, removed when it exits.
FuzzStore& fuzzStore() {
  static FuzzStore store = [] {
    std::string dir = scratchDirectory("fuzz-download-store");
    if (dir.empty())
      std::abort();
    std::string root = std::string(dir) + "/store";
    std::string sym = std::string("MODULE windows x86_64 ") + kDebugId +
                      " app.pdb\nINFO CODE_ID 5F3A1B2C4000 app.exe\n";
    for (int i = 0; i < 200; ++i) // large enough to be worth a gzip copy
      sym +=
          "PUBLIC " + std::to_string(0x1000 + 16 * i) + " 0 function_" + std::to_string(i) + "\n";
    put(root, symbolFileRelativePath("app.pdb", DebugId(kDebugId)), sym);
    put(root, "app.exe/5F3A1B2C4000/app.exe.sym", sym); // the code-id index entry (a copy)
    using test_support::ElfSection;
    std::vector<uint8_t> info(300, 7), text(4000, 0x90);
    std::vector<uint8_t> debug =
        test_support::elfAround({{".debug_info", llvm::ELF::SHT_PROGBITS, 0, info},
                                 {".text", llvm::ELF::SHT_NOBITS, llvm::ELF::SHF_ALLOC, {}}});
    std::vector<uint8_t> executable =
        test_support::elfAround({{".text", llvm::ELF::SHT_PROGBITS, llvm::ELF::SHF_ALLOC, text}});
    BuildIdEntry entry{keptFileRelativePath("libx.so", DebugId(kElfId), "libx.so"),
                       keptFileRelativePath("libx.so", DebugId(kElfId), "libx.so.debug")};
    put(root, entry.executable, std::string(executable.begin(), executable.end()));
    put(root, entry.debuginfo, std::string(debug.begin(), debug.end()));
    put(root, buildIdIndexRelativePath(*BuildId::parseHex(kBuildId)), formatBuildIdEntry(entry));
    put(root, "libx.so/" + std::string(kElfId) + "/libx.so.sym",
        "MODULE Linux x86_64 " + std::string(kElfId) + " libx.so\n");
    FuzzStore made;
    auto backend = openDirectoryBackend(root);
    if (!backend)
      std::abort();
    made.backend = std::move(*backend);
    made.service = std::make_unique<DownloadService>(*made.backend, std::string(dir) + "/cache");
    return made;
  }();
  return store;
}

std::string field(llvm::StringRef line) {
  return line.substr(0, line.find('\0')).str();
}

void checkPureParsers(const std::vector<std::string>& fields, llvm::StringRef text) {
  const std::string& path = fields[0];
  DownloadRoute route = parseDownloadRoute(path);
  if (route.kind == DownloadRoute::Kind::Debuginfod)
    require(isBuildIdText(route.build_id.hex()));
  if (route.kind == DownloadRoute::Kind::StoreFile)
    require(route.components.size() == 3);
  (void)isBuildIdText(path);
  std::string relative = path.empty() ? path : path.substr(1);
  if (isSafeRelativePath(relative)) {
    // What layout.h promises of such a path.
    llvm::SmallVector<llvm::StringRef, 8> parts;
    llvm::StringRef(relative).split(parts, '/');
    for (llvm::StringRef part : parts)
      require(!part.empty() && !part.starts_with(".") &&
              part.find_first_of("\\:") == llvm::StringRef::npos);
    (void)locationOf(relative);
  }

  for (uint64_t size : {uint64_t(0), uint64_t(1), uint64_t(4096), ~uint64_t(0)}) {
    ByteRange range = parseByteRange(fields[1], size);
    if (range.kind == ByteRange::Kind::Partial) {
      require(range.length > 0 && range.first < size && range.length <= size - range.first);
      (void)contentRange(range, size);
    }
  }
  (void)acceptsGzip(fields[2]);
  for (int i = 3; i <= 5; ++i)
    if (std::optional<int64_t> date = parseHttpDate(fields[i]))
      require(parseHttpDate(formatHttpDate(*date)) == date);
  (void)ifNoneMatchMatches(fields[3], "\"5f3a-1b2c\"", "\"5f3a-1b2c-gzip\"");
  (void)isNotModified(fields[3], fields[4], "\"5f3a-1b2c\"", "\"5f3a-1b2c-gzip\"", 1700000000);
  (void)ifRangeHolds(fields[5], "\"5f3a-1b2c\"", 1700000000);

  std::string bytes = text.str();
  if (std::optional<BuildIdEntry> entry = parseBuildIdEntry(bytes)) {
    require(entry->executable.empty() || isSafeRelativePath(entry->executable));
    require(entry->debuginfo.empty() || isSafeRelativePath(entry->debuginfo));
    std::optional<BuildIdEntry> again = parseBuildIdEntry(formatBuildIdEntry(*entry));
    require(again && again->executable == entry->executable &&
            again->debuginfo == entry->debuginfo);
  }
  if (llvm::Expected<SymbolFileHeader> header = parseSymbolFileHeader(bytes); !header)
    llvm::consumeError(header.takeError());
  if (llvm::Expected<TokenSet> tokens = TokenSet::parse(bytes, "tokens")) {
    (void)tokens->permissions(fields[6]);
  } else {
    llvm::consumeError(tokens.takeError());
  }

  // The section finder reads a file by its descriptor: the bytes in memory.
  int fd = ::memfd_create("fuzz-elf", 0);
  if (fd < 0)
    return;
  if (::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size())) {
    std::string name = route.kind == DownloadRoute::Kind::Debuginfod ? route.section : ".text";
    ElfSectionSpan span = findElfSection(fd, text.size(), name);
    if (span.kind == ElfSectionSpan::Kind::Bytes)
      require(span.offset <= text.size() && span.size <= text.size() - span.offset);
  }
  ::close(fd);
}

void checkService(const std::vector<std::string>& fields, bool head) {
  ServerRequest request;
  request.method = head ? "HEAD" : "GET";
  request.path = fields[0];
  const char* names[] = {
      "", "range", "accept-encoding", "if-none-match", "if-modified-since", "if-range"};
  for (int i = 1; i <= 5; ++i)
    if (!fields[i].empty())
      request.headers[names[i]] = fields[i];
  if (!fields[6].empty()) {
    request.headers["authorization"] = "Bearer " + fields[6];
    request.query["key"] = fields[6];
    (void)requestToken(request);
  }
  ServerResponse response = fuzzStore().service->handle(request);
  require(response.status != 403);
  require(response.status != 206 || !fields[1].empty());
  require(response.status != 304 || !fields[3].empty() || !fields[4].empty());
  if (response.fd >= 0) {
    struct stat info {};
    require(::fstat(response.fd, &info) == 0);
    require(response.fd_offset <= static_cast<uint64_t>(info.st_size) &&
            response.fd_length <= static_cast<uint64_t>(info.st_size) - response.fd_offset);
    ::close(response.fd);
  }
}

} // namespace

int downloadRequests(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> fields;
  llvm::StringRef rest = input;
  for (int i = 0; i < 7; ++i) {
    auto [line, after] = rest.split('\n');
    fields.push_back(field(line));
    rest = after;
  }
  bool head = llvm::StringRef(fields[0]).starts_with("HEAD ");
  if (head)
    fields[0] = fields[0].substr(5);
  checkPureParsers(fields, rest);
  checkService(fields, head);
  return 0;
}

} // namespace dumpsyms::fuzz
