#include "server/downloads/debuginfod_files.h"

#include "server/downloads/elf_section_span.h"
#include "store/layout/layout.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/xxhash.h>
#include <unistd.h>

namespace dumpsyms {
namespace {

// A build-id entry is two short lines.
constexpr uint64_t kBuildIdEntryBytes = 4096;

} // namespace

llvm::Expected<std::optional<BuildIdEntry>> readBuildIdEntry(StoreBackend& store,
                                                             const BuildId& build_id) {
  // The index is a dot-directory no client may name, so this path (built
  // from checked hex) is read without the client-path check.
  std::string index = buildIdIndexRelativePath(build_id);
  llvm::Expected<std::optional<StoredObjectInfo>> info = store.stat(index);
  if (!info)
    return info.takeError();
  if (!*info || (*info)->size > kBuildIdEntryBytes)
    return std::nullopt;
  llvm::Expected<std::string> text = store.readRange(index, 0, kBuildIdEntryBytes);
  if (!text)
    return text.takeError();
  return parseBuildIdEntry(*text);
}

namespace {

std::vector<std::pair<std::string, std::string>> debuginfodHeaders(const std::string& relative,
                                                                   uint64_t size) {
  // elfutils' servers name the file and its size; clients show progress by it.
  return {{"X-Debuginfod-Size", std::to_string(size)}, {"X-Debuginfod-File", "/" + relative}};
}

llvm::Expected<std::optional<ServedEntity>> wholeFile(StoreBackend& store,
                                                      const std::string& relative) {
  // The entry's paths are the store's own spelling, checked again all the same.
  if (relative.empty() || !isSafeRelativePath(relative))
    return std::nullopt;
  llvm::Expected<std::optional<OpenedObject>> opened = store.openIfPresent(relative);
  if (!opened)
    return opened.takeError();
  if (!*opened)
    return std::nullopt;
  ServedEntity entity;
  entity.fd = (*opened)->fd;
  entity.length = (*opened)->info.size;
  entity.etag = (*opened)->info.etag;
  entity.mtime = (*opened)->info.mtime;
  entity.content_type = "application/octet-stream";
  entity.cache_key = relative;
  entity.extra_headers = debuginfodHeaders(relative, entity.length);
  return entity;
}

// The ETag of one section of a file: the file's, told apart by the name.
std::string sectionEtag(const std::string& etag, const std::string& section) {
  llvm::StringRef tag(etag);
  std::string suffix = "-s" + llvm::utohexstr(llvm::xxh3_64bits(section), /*LowerCase=*/true);
  if (tag.size() >= 2 && tag.ends_with("\""))
    return tag.drop_back().str() + suffix + "\"";
  return "\"" + etag + suffix + "\"";
}

llvm::Expected<std::optional<ServedEntity>> section(StoreBackend& store, const BuildIdEntry& entry,
                                                    const std::string& name) {
  std::vector<std::string> files = {entry.debuginfo};
  if (entry.executable != entry.debuginfo)
    files.push_back(entry.executable);
  for (const std::string& relative : files) {
    llvm::Expected<std::optional<ServedEntity>> file = wholeFile(store, relative);
    if (!file)
      return file.takeError();
    if (!*file)
      continue;
    ServedEntity& entity = **file;
    ElfSectionSpan span = findElfSection(entity.fd, entity.length, name);
    if (span.kind != ElfSectionSpan::Kind::Bytes) {
      ::close(entity.fd);
      continue;
    }
    entity.offset = span.offset;
    entity.length = span.size;
    entity.etag = sectionEtag(entity.etag, name);
    entity.cache_key = relative + "#" + name;
    entity.extra_headers = debuginfodHeaders(relative, span.size);
    return std::move(*file);
  }
  return std::nullopt;
}

} // namespace

llvm::Expected<std::optional<ServedEntity>> findDebuginfodEntity(StoreBackend& store,
                                                                 const DownloadRoute& route) {
  llvm::Expected<std::optional<BuildIdEntry>> entry = readBuildIdEntry(store, route.build_id);
  if (!entry)
    return entry.takeError();
  if (!*entry)
    return std::nullopt;
  switch (route.artifact) {
  case DownloadRoute::Artifact::Debuginfo:
    return wholeFile(store, (*entry)->debuginfo);
  case DownloadRoute::Artifact::Executable:
    return wholeFile(store, (*entry)->executable);
  case DownloadRoute::Artifact::Section:
    return section(store, **entry, route.section);
  }
  return std::nullopt;
}

} // namespace dumpsyms
