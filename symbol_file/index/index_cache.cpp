#include "symbol_file/index/index_cache.h"

#include "common/errors/file_error.h"
#include "common/files/atomic_file.h"
#include "common/files/user_cache_dir.h"
#include "symbol_file/index/index_output.h"
#include "symbol_file/index/index_path.h"
#include "symbol_file/index/index_sink.h"
#include "symbol_file/index/owned_buffer.h"
#include "symbol_file/text/text_stream.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/xxhash.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dumpsyms {

using namespace symbol_index;

namespace {

constexpr llvm::StringLiteral kIndexSuffix = ".idx";

// An open symbol file and its size and time.
struct OpenSym {
  int fd = -1;
  uint64_t size = 0, mtime_ns = 0;
  OpenSym() = default;
  OpenSym(const OpenSym&) = delete;
  ~OpenSym() {
    if (fd >= 0)
      ::close(fd);
  }
};

llvm::Error openSym(const std::string& path, OpenSym& sym) {
  sym.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (sym.fd < 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
  struct stat st;
  if (::fstat(sym.fd, &st) != 0)
    return fileError(path, std::string("cannot read it: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return fileError(path, "is not a regular file");
  sym.size = static_cast<uint64_t>(st.st_size);
  sym.mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000u +
                 static_cast<uint64_t>(st.st_mtim.tv_nsec);
  return llvm::Error::success();
}

// The cache's name for the index of `sym_path`: its file name (for people
// looking) and a hash of its absolute, resolved path.
std::string cachePath(const std::string& directory, const std::string& sym_path) {
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(sym_path, real))
    real = sym_path;
  return directory + "/" + llvm::sys::path::filename(sym_path).str() + "." +
         llvm::utohexstr(llvm::xxh3_64bits(real.str()), /*LowerCase=*/true, 16) +
         kIndexSuffix.str();
}

// The index at `path` when it is usable for `sym`; otherwise why not ("" when
// there is none).
std::unique_ptr<IndexFile> tryIndex(const std::string& path, const OpenSym& sym,
                                    const std::string& sym_path, std::string& why) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return nullptr;
  auto index = IndexFile::open(std::move(*buffer), path);
  if (!index) {
    why = llvm::toString(index.takeError());
    return nullptr;
  }
  const Header& header = (*index)->header();
  if (header.sym_size != sym.size) {
    why = path + ": stale (" + sym_path + " has changed)";
    return nullptr;
  }
  if (header.sym_mtime_ns != sym.mtime_ns) {
    // A copy of the same bytes (a synced store) keeps its index; a file
    // rewritten with the same size does not.
    auto hash = contentHashOfFile(sym.fd, sym.size, sym_path);
    if (!hash) {
      why = llvm::toString(hash.takeError());
      return nullptr;
    }
    if (*hash != header.sym_hash) {
      why = path + ": stale (" + sym_path + " has changed)";
      return nullptr;
    }
  }
  return std::move(*index);
}

// The open symbol file parsed into an index's tables, with its stamp.
struct ParsedSym {
  std::unique_ptr<IndexSink> sink = std::make_unique<IndexSink>();
  SymStamp stamp;
  bool corrupt = false;
};

llvm::Expected<ParsedSym> parse(const std::string& sym_path, const OpenSym& sym) {
  ParsedSym parsed;
  SymbolTextParser parser(*parsed.sink, sym.size);
  ContentHasher hasher;
  if (auto error = streamSymbolFile(sym.fd, sym_path, parser,
                                    [&](llvm::StringRef bytes, uint64_t) { hasher.add(bytes); }))
    return error;
  if (!parsed.sink->hasModuleName())
    return fileError(sym_path, "is not a symbol file (no MODULE record)");
  parsed.stamp = {hasher.bytes(), sym.mtime_ns, hasher.finish()};
  parsed.corrupt = makesSymbolsCorrupt(parser.problems());
  return parsed;
}

// The index written into `path` atomically, and mapped.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> writeIndexFile(const std::string& path,
                                                                   ParsedSym& parsed) {
  if (auto error = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return fileError(path, "cannot make its directory: " + error.message());
  auto file = AtomicFile::create(path);
  if (!file)
    return file.takeError();
  IndexOutput out(file->fd(), path);
  if (auto error = parsed.sink->finish(parsed.stamp, parsed.corrupt, out))
    return error;
  auto mapped = llvm::MemoryBuffer::getOpenFile(file->fd(), path, out.size(),
                                                /*RequiresNullTerminator=*/false);
  if (!mapped)
    return fileError(path, "cannot map the index: " + mapped.getError().message());
  if (auto error = file->commit())
    return error;
  return std::move(*mapped);
}

llvm::Expected<OpenedIndex> build(const std::string& sym_path, const OpenSym& sym,
                                  const IndexCacheOptions& options, std::string note) {
  auto parsed = parse(sym_path, sym);
  if (!parsed)
    return parsed.takeError();
  std::unique_ptr<llvm::MemoryBuffer> bytes;
  std::string name = sym_path;
  if (!options.directory.empty()) {
    std::string path = cachePath(options.directory, sym_path);
    auto written = writeIndexFile(path, *parsed);
    if (written) {
      bytes = std::move(*written);
      name = path;
    } else {
      note += (note.empty() ? "" : "; ") + std::string("the index cache: ") +
              llvm::toString(written.takeError());
    }
  }
  if (!bytes) {
    IndexOutput out;
    if (auto error = parsed->sink->finish(parsed->stamp, parsed->corrupt, out))
      return fileError(sym_path, llvm::toString(std::move(error)));
    bytes = ownedBuffer(out.take(), sym_path);
  }
  auto index = IndexFile::open(std::move(bytes), name, /*trusted=*/true);
  if (!index)
    return index.takeError();
  return OpenedIndex{std::move(*index), "built", std::move(note)};
}

} // namespace

std::string IndexCacheOptions::defaultDirectory() {
  return userCacheDir("symtool", "index");
}

llvm::Expected<OpenedIndex> openSymbolIndex(const std::string& sym_path,
                                            const IndexCacheOptions& options) {
  OpenSym sym;
  if (auto error = openSym(sym_path, sym))
    return error;
  std::string note;
  auto consider = [&](const std::string& path) -> std::unique_ptr<IndexFile> {
    std::string why;
    auto index = tryIndex(path, sym, sym_path, why);
    if (!why.empty())
      note += (note.empty() ? "" : "; ") + why + ": rebuilt";
    return index;
  };
  if (auto index = consider(symbolIndexPath(sym_path)))
    return OpenedIndex{std::move(index), "beside", std::move(note)};
  if (!options.directory.empty())
    if (auto index = consider(cachePath(options.directory, sym_path)))
      return OpenedIndex{std::move(index), "cache", std::move(note)};
  return build(sym_path, sym, options, std::move(note));
}

llvm::Expected<OpenedIndex> rebuildSymbolIndex(const std::string& sym_path,
                                               const IndexCacheOptions& options) {
  OpenSym sym;
  if (auto error = openSym(sym_path, sym))
    return error;
  return build(sym_path, sym, options, "the index was damaged: rebuilt");
}

llvm::Error writeIndexBeside(const std::string& sym_path) {
  OpenSym sym;
  if (auto error = openSym(sym_path, sym))
    return error;
  auto parsed = parse(sym_path, sym);
  if (!parsed)
    return parsed.takeError();
  auto written = writeIndexFile(symbolIndexPath(sym_path), *parsed);
  return written ? llvm::Error::success() : written.takeError();
}

llvm::Expected<bool> updateIndexBeside(const std::string& sym_path) {
  OpenSym sym;
  if (auto error = openSym(sym_path, sym))
    return error;
  std::string why;
  if (tryIndex(symbolIndexPath(sym_path), sym, sym_path, why))
    return false;
  auto parsed = parse(sym_path, sym);
  if (!parsed)
    return parsed.takeError();
  auto written = writeIndexFile(symbolIndexPath(sym_path), *parsed);
  if (!written)
    return written.takeError();
  return true;
}

} // namespace dumpsyms
