#include "store/supply/store_mirror.h"

#include "common/files/atomic_file.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <ostream>
#include <unistd.h>

namespace dumpsyms {
namespace {

// The ETag a mirrored copy was made from, kept beside it.
std::string etagPath(const std::string& path) {
  return path + ".etag";
}

std::string readSmallFile(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().str() : "";
}

} // namespace

StoreMirror::StoreMirror(StoreBackend& store, std::string store_directory,
                         std::string mirror_directory)
    : store_(store), mirrored_(store_directory.empty()),
      root_(store_directory.empty() ? std::move(mirror_directory) : std::move(store_directory)) {}

llvm::Expected<std::string> StoreMirror::path(const CatalogEntry& entry) {
  std::string local = root_ + "/" + entry.relative_path;
  if (!mirrored_)
    return local;
  std::lock_guard<std::mutex> lock(mirror_mutex_);
  if (llvm::sys::fs::exists(local) && readSmallFile(etagPath(local)) == entry.etag)
    return local;
  auto opened = store_.open(entry.relative_path);
  if (!opened)
    return opened.takeError();
  auto buffer = llvm::MemoryBuffer::getOpenFile(opened->fd, entry.relative_path, -1,
                                                /*RequiresNullTerminator=*/false);
  ::close(opened->fd);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "%s: cannot read it: %s",
                                   entry.relative_path.c_str(),
                                   buffer.getError().message().c_str());
  if (std::error_code ec = llvm::sys::fs::create_directories(llvm::sys::path::parent_path(local)))
    return llvm::createStringError(ec, "%s: cannot make its directory: %s", local.c_str(),
                                   ec.message().c_str());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (llvm::Error error = writeFileAtomically(
          local, [&](std::ostream& out) { out.write(bytes.data(), bytes.size()); }))
    return error;
  if (llvm::Error error =
          writeFileAtomically(etagPath(local), [&](std::ostream& out) { out << entry.etag; }))
    return error;
  return local;
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> StoreMirror::text(const CatalogEntry& entry) {
  auto local = path(entry);
  if (!local)
    return local.takeError();
  auto buffer = llvm::MemoryBuffer::getFile(*local, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "%s: cannot read it: %s",
                                   entry.relative_path.c_str(),
                                   buffer.getError().message().c_str());
  return std::move(*buffer);
}

} // namespace dumpsyms
