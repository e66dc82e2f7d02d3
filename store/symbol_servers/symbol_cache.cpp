#include "store/symbol_servers/symbol_cache.h"

#include "common/errors/file_error.h"

#include <cstdlib>
#include <fcntl.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <unistd.h>

namespace dumpsyms {

namespace {

// A short stable name for a server URL (FNV-1a, 64 bits).
std::string serverTag(const std::string& server) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : server) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

} // namespace

SymbolCache::SymbolCache(std::string root, std::chrono::seconds miss_ttl)
    : root_(std::move(root)), miss_ttl_(miss_ttl) {}

std::string SymbolCache::path(const std::string& relative) const {
  return root_ + "/" + relative;
}

bool SymbolCache::has(const std::string& relative) const {
  return llvm::sys::fs::is_regular_file(path(relative));
}

std::string SymbolCache::missMark(const std::string& server, const std::string& relative) const {
  return path(relative) + ".missing-" + serverTag(server);
}

bool SymbolCache::missRemembered(const std::string& server, const std::string& relative) const {
  if (miss_ttl_.count() <= 0)
    return false;
  llvm::sys::fs::file_status status;
  if (llvm::sys::fs::status(missMark(server, relative), status))
    return false;
  auto age = std::chrono::system_clock::now() - status.getLastModificationTime();
  return age >= std::chrono::seconds(0) && age < miss_ttl_;
}

void SymbolCache::rememberMiss(const std::string& server, const std::string& relative) {
  if (miss_ttl_.count() <= 0)
    return;
  std::string mark = missMark(server, relative);
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(mark)))
    return; // a cache that cannot be written only costs a request next time
  int fd = open(mark.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd >= 0)
    close(fd); // O_TRUNC on an existing mark renews its time
}

llvm::Expected<AtomicFile> SymbolCache::begin(const std::string& relative) {
  std::string target = path(relative);
  if (std::error_code error =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(target)))
    return fileError(target, "cannot create the cache directory: " + error.message());
  return AtomicFile::create(target);
}

std::string SymbolCache::defaultRoot() {
  return userCacheDir("symtool", "symbols");
}

} // namespace dumpsyms
