#include "store_catalog/catalog_reading.h"

#include "store/code_id_index.h"
#include "store/layout.h"
#include "store_catalog/catalog_header.h"

#include <algorithm>
#include <llvm/ADT/StringRef.h>
#include <map>
#include <optional>

namespace dumpsyms {
namespace {

// What one .sym of a directory turned out to be.
struct SymbolFileReading {
  std::optional<CatalogEntry> entry; // a link's header too
  // The file is the code-id link (store/code_id_index.h) to the module's
  // symbol file at this path: neither a catalog entry nor a problem.
  std::string links_to;
  std::string problem; // "" unless it is one
};

// A name a listing returned that the catalog looks at: not the store's own
// (dot names: .build-id, .uploads, temporaries) and one a client could ask
// for (an S3 listing may return any key).
bool isCataloguedName(const std::string& name) {
  return !name.empty() && name.front() != '.' && isSafeRelativePath(name);
}

SymbolFileReading readSymbolFile(StoreBackend& store, const std::string& relative,
                                 const std::unordered_map<std::string, CatalogEntry>& known) {
  SymbolFileReading reading;
  llvm::Expected<std::optional<StoredObjectInfo>> info = store.stat(relative);
  if (!info) {
    reading.problem = "cannot read it: " + llvm::toString(info.takeError());
    return reading;
  }
  if (!*info)
    return reading; // removed since the listing
  std::optional<CatalogEntry> entry;
  auto was = known.find(relative);
  if (was != known.end() && !(*info)->etag.empty() && was->second.etag == (*info)->etag) {
    entry = was->second;
  } else {
    llvm::Expected<std::string> head = store.readRange(relative, 0, kCatalogHeaderBytes);
    if (!head) {
      reading.problem = "cannot read it: " + llvm::toString(head.takeError());
      return reading;
    }
    entry = parseCatalogHeader(*head);
    if (!entry) {
      reading.problem = "does not start with a MODULE line (os, cpu, id and name)";
      return reading;
    }
  }
  entry->relative_path = relative;
  entry->size = (*info)->size;
  entry->mtime = (*info)->mtime;
  entry->etag = (*info)->etag;
  entry->kept.clear(); // gathered again: kept files change without the .sym
  entry->kept_bytes = 0;
  std::string expected =
      moduleRelativePath(entry->debug_file, entry->debug_id, entry->code_file, entry->code_id);
  if (relative == expected) {
    reading.entry = std::move(entry);
    return reading;
  }
  if (!entry->code_file.empty() && !entry->code_id.empty() &&
      relative == codeIdRelativePath(entry->code_file, entry->code_id)) {
    reading.links_to = expected;
    reading.entry = std::move(entry);
    return reading;
  }
  reading.problem = "its MODULE line files it as " + expected;
  return reading;
}

// One <debug_file>/<ID>/ directory's files besides the symbol files.
struct KeptFiles {
  std::vector<std::string> paths;
  uint64_t bytes = 0;
};

KeptFiles statKept(StoreBackend& store, const std::vector<std::string>& paths,
                   std::vector<std::string>& problems) {
  KeptFiles kept;
  for (const std::string& path : paths) {
    llvm::Expected<std::optional<StoredObjectInfo>> info = store.stat(path);
    if (!info) {
      problems.push_back(path + ": cannot read it: " + llvm::toString(info.takeError()));
      continue;
    }
    if (!*info)
      continue; // removed since the listing, or not a file (a directory)
    kept.paths.push_back(path);
    kept.bytes += (*info)->size;
  }
  return kept;
}

class CatalogWalk {
public:
  CatalogWalk(StoreBackend& store, const std::unordered_map<std::string, CatalogEntry>& known)
      : store_(store), known_(known) {}

  llvm::Expected<CatalogReading> run() {
    llvm::Expected<std::vector<std::string>> names = store_.listNames("");
    if (!names)
      return names.takeError();
    for (const std::string& name : *names) {
      if (!isCataloguedName(name))
        continue;
      llvm::Expected<std::vector<std::string>> ids = store_.listNames(name);
      if (!ids)
        return ids.takeError();
      for (const std::string& id : *ids)
        if (isCataloguedName(id))
          if (llvm::Error error = readDirectory(name + "/" + id))
            return error;
    }
    attachLinkedKept();
    std::sort(reading_.entries.begin(), reading_.entries.end(),
              [](const CatalogEntry& a, const CatalogEntry& b) {
                return a.relative_path < b.relative_path;
              });
    std::sort(reading_.problems.begin(), reading_.problems.end());
    return std::move(reading_);
  }

private:
  llvm::Error readDirectory(const std::string& directory) {
    llvm::Expected<std::vector<std::string>> files = store_.listNames(directory);
    if (!files)
      return files.takeError();
    std::optional<size_t> entry; // index in reading_.entries
    std::string links_to;
    std::vector<std::string> others;
    for (const std::string& file : *files) {
      std::string path = directory + "/" + file;
      if (!isCataloguedName(file) || isSymbolIndexPath(path))
        continue;
      if (!llvm::StringRef(file).ends_with(".sym")) {
        others.push_back(path);
        continue;
      }
      SymbolFileReading read = readSymbolFile(store_, path, known_);
      if (!read.problem.empty())
        reading_.problems.push_back(path + ": " + read.problem);
      if (read.entry && !read.links_to.empty()) {
        reading_.links.push_back(std::move(*read.entry));
        if (links_to.empty())
          links_to = read.links_to;
      } else if (read.entry) {
        // The layout files one build under one name: a second entry in
        // one directory cannot be, but its kept files go with the first.
        if (!entry)
          entry = reading_.entries.size();
        reading_.entries.push_back(std::move(*read.entry));
      }
    }
    if (others.empty())
      return llvm::Error::success();
    KeptFiles kept = statKept(store_, others, reading_.problems);
    if (entry) {
      CatalogEntry& owner = reading_.entries[*entry];
      owner.kept = std::move(kept.paths);
      owner.kept_bytes = kept.bytes;
    } else if (!links_to.empty()) {
      KeptFiles& pending = linked_kept_[links_to];
      pending.paths.insert(pending.paths.end(), kept.paths.begin(), kept.paths.end());
      pending.bytes += kept.bytes;
    } else {
      for (const std::string& path : kept.paths)
        reading_.problems.push_back(path + ": not beside a symbol file");
    }
    return llvm::Error::success();
  }

  // Files kept beside a code-id link (a PE where SSQP clients ask) belong
  // to the build the link names.
  void attachLinkedKept() {
    std::map<std::string, CatalogEntry*> by_path;
    for (CatalogEntry& entry : reading_.entries)
      by_path.emplace(entry.relative_path, &entry);
    for (auto& [target, kept] : linked_kept_) {
      auto found = by_path.find(target);
      if (found == by_path.end()) {
        for (const std::string& path : kept.paths)
          reading_.problems.push_back(path + ": not beside a symbol file");
        continue;
      }
      CatalogEntry& owner = *found->second;
      owner.kept.insert(owner.kept.end(), kept.paths.begin(), kept.paths.end());
      owner.kept_bytes += kept.bytes;
    }
    for (CatalogEntry& entry : reading_.entries)
      std::sort(entry.kept.begin(), entry.kept.end());
  }

  StoreBackend& store_;
  const std::unordered_map<std::string, CatalogEntry>& known_;
  CatalogReading reading_;
  std::map<std::string, KeptFiles> linked_kept_; // by the linked symbol file's path
};

} // namespace

llvm::Expected<CatalogReading>
readCatalog(StoreBackend& store, const std::unordered_map<std::string, CatalogEntry>& known) {
  return CatalogWalk(store, known).run();
}

} // namespace dumpsyms
