// CatalogSnapshot's questions other than search: the summary, one build, a
// module's versions.
#include "store/catalog/catalog_ids.h"
#include "store/catalog/catalog_order.h"
#include "store/catalog/store_catalog.h"

#include <algorithm>
#include <llvm/ADT/StringRef.h>
#include <set>

namespace dumpsyms {

const char* catalogMatchName(CatalogMatchKind kind) {
  switch (kind) {
  case CatalogMatchKind::Name:
    return "name";
  case CatalogMatchKind::DebugId:
    return "debug id";
  case CatalogMatchKind::CodeId:
    return "code id";
  case CatalogMatchKind::BuildId:
    return "build id";
  }
  return "name";
}

CatalogSnapshot::CatalogSnapshot(std::vector<CatalogEntry> entries,
                                 std::vector<std::string> problems)
    : entries_(std::move(entries)), problems_(std::move(problems)) {
  std::sort(entries_.begin(), entries_.end(), [](const CatalogEntry& a, const CatalogEntry& b) {
    return a.relative_path < b.relative_path;
  });
}

CatalogSummary CatalogSnapshot::summary(size_t newest_count) const {
  CatalogSummary summary;
  std::set<std::string> modules;
  for (const CatalogEntry& entry : entries_) {
    modules.insert(entry.debug_file);
    summary.kept_files += entry.kept.size();
    summary.bytes += entry.size + entry.kept_bytes;
  }
  summary.modules = modules.size();
  summary.symbol_files = entries_.size();
  std::vector<const CatalogEntry*> newest;
  newest.reserve(entries_.size());
  for (const CatalogEntry& entry : entries_)
    newest.push_back(&entry);
  size_t count = std::min(newest_count, newest.size());
  std::partial_sort(
      newest.begin(), newest.begin() + static_cast<ptrdiff_t>(count), newest.end(),
      [](const CatalogEntry* a, const CatalogEntry* b) { return isNewerEntry(*a, *b); });
  for (size_t i = 0; i < count; ++i)
    summary.newest.push_back(*newest[i]);
  return summary;
}

const CatalogEntry* CatalogSnapshot::find(const std::string& debug_file,
                                          const DebugId& debug_id) const {
  // The spelling asked for first; another only when the store has none so.
  const CatalogEntry* found = nullptr;
  std::string id_key = debug_id.key();
  for (const CatalogEntry& entry : entries_) {
    if (!llvm::StringRef(entry.debug_file).equals_insensitive(debug_file) ||
        entry.debug_id.key() != id_key)
      continue;
    if (entry.debug_file == debug_file && entry.debug_id == debug_id)
      return &entry;
    if (!found)
      found = &entry;
  }
  return found;
}

std::vector<const CatalogEntry*> CatalogSnapshot::versions(const std::string& debug_file) const {
  std::vector<const CatalogEntry*> versions;
  for (const CatalogEntry& entry : entries_)
    if (llvm::StringRef(entry.debug_file).equals_insensitive(debug_file))
      versions.push_back(&entry);
  std::sort(versions.begin(), versions.end(),
            [](const CatalogEntry* a, const CatalogEntry* b) { return isNewerEntry(*a, *b); });
  return versions;
}

} // namespace dumpsyms
