#include "store/catalog/catalog_reading.h"

#include "common/limits/input_limits.h"
#include "store/catalog/catalog_header.h"
#include "store/layout/code_id_index.h"
#include "store/layout/layout.h"
#include "symbol_file/index/index_path.h"

#include <algorithm>
#include <llvm/ADT/SmallVector.h>
#include <llvm/ADT/StringRef.h>
#include <map>
#include <optional>

namespace dumpsyms {
namespace {

// What one .sym of a directory turned out to be.
struct SymbolFileReading {
  std::optional<CatalogEntry> entry; // a link's header too
  // The file is the code-id link (store/layout/code_id_index.h) to the module's
  // symbol file at this path: neither a catalog entry nor a problem.
  std::string links_to;
  std::string problem; // "" unless it is one
};

// A name a listing returned that the catalog looks at: not the store's own
// (dot names: .build-id, .uploads, temporaries) and one a client could ask
// for (an S3 listing may return any key).
bool isCataloguedName(llvm::StringRef name) {
  return !name.empty() && name.front() != '.' && isSafeRelativePath(name.str());
}

// "<name>/<id>/<file>", each a catalogued name.
bool isCataloguedPath(const std::string& relative) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  llvm::StringRef(relative).split(parts, '/');
  return parts.size() == 3 && std::all_of(parts.begin(), parts.end(), isCataloguedName);
}

SymbolFileReading readSymbolFile(StoreBackend& store, const ListedObject& file,
                                 const std::unordered_map<std::string, CatalogEntry>& known) {
  SymbolFileReading reading;
  const std::string& relative = file.relative;
  const StoredObjectInfo* info = &file.info;
  std::optional<CatalogEntry> entry;
  auto was = known.find(relative);
  if (was != known.end() && !info->etag.empty() && was->second.etag == info->etag) {
    entry = was->second;
  } else {
    llvm::Expected<std::string> head = store.readRange(relative, 0, limits::kSymbolHeaderBytes);
    if (!head) {
      reading.problem = "cannot read it: " + llvm::toString(head.takeError());
      return reading;
    }
    llvm::Expected<SymbolFileHeader> header = parseSymbolFileHeader(*head);
    if (!header) {
      llvm::consumeError(header.takeError());
      reading.problem = "does not start with a MODULE line (os, cpu, id and name)";
      return reading;
    }
    entry = catalogEntryOf(*header);
  }
  entry->relative_path = relative;
  entry->size = info->size;
  entry->mtime = info->mtime;
  entry->etag = info->etag;
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

KeptFiles keptFiles(const std::vector<const ListedObject*>& files) {
  KeptFiles kept;
  for (const ListedObject* file : files) {
    kept.paths.push_back(file->relative);
    kept.bytes += file->info.size;
  }
  return kept;
}

class CatalogWalk {
public:
  CatalogWalk(StoreBackend& store, const std::unordered_map<std::string, CatalogEntry>& known)
      : store_(store), known_(known) {}

  llvm::Expected<CatalogReading> run() {
    llvm::Expected<std::vector<ListedObject>> files = store_.listFiles();
    if (!files)
      return files.takeError();
    // Sorted by path, so each <name>/<id>/ directory's files are together.
    std::sort(files->begin(), files->end(),
              [](const ListedObject& a, const ListedObject& b) { return a.relative < b.relative; });
    std::vector<const ListedObject*> directory;
    auto directoryOf = [](const std::string& relative) {
      return llvm::StringRef(relative).rsplit('/').first;
    };
    for (const ListedObject& file : *files) {
      if (!isCataloguedPath(file.relative))
        continue;
      if (!directory.empty() &&
          directoryOf(directory.front()->relative) != directoryOf(file.relative)) {
        readDirectory(directory);
        directory.clear();
      }
      directory.push_back(&file);
    }
    if (!directory.empty())
      readDirectory(directory);
    attachLinkedKept();
    std::sort(reading_.entries.begin(), reading_.entries.end(),
              [](const CatalogEntry& a, const CatalogEntry& b) {
                return a.relative_path < b.relative_path;
              });
    std::sort(reading_.problems.begin(), reading_.problems.end());
    return std::move(reading_);
  }

private:
  void readDirectory(const std::vector<const ListedObject*>& files) {
    std::optional<size_t> entry; // index in reading_.entries
    std::string links_to;
    std::vector<const ListedObject*> others;
    for (const ListedObject* file : files) {
      const std::string& path = file->relative;
      if (isSymbolIndexPath(path))
        continue;
      if (!llvm::StringRef(path).ends_with(".sym")) {
        others.push_back(file);
        continue;
      }
      SymbolFileReading read = readSymbolFile(store_, *file, known_);
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
      return;
    KeptFiles kept = keptFiles(others);
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
