// CatalogSnapshot::search: what a person typed in the search box matched
// against every entry, one page of it.
#include "store/catalog/catalog_ids.h"
#include "store/catalog/catalog_order.h"
#include "store/catalog/store_catalog.h"

#include <algorithm>
#include <llvm/ADT/StringRef.h>
#include <optional>

namespace dumpsyms {
namespace {

// Ids shorter than this would match too much to mean anything (and a name
// prefix of that length finds the module anyway).
constexpr size_t kMinIdDigits = 8;
// A page longer than this is no page; a request may ask for any number.
constexpr size_t kMaxPerPage = 1000;
constexpr size_t kDefaultPerPage = 50;

std::optional<CatalogMatchKind> matchOf(const CatalogEntry& entry, llvm::StringRef name,
                                        const std::string& id_key, bool id_query) {
  if (llvm::StringRef(entry.debug_file).starts_with_insensitive(name) ||
      (!entry.code_file.empty() && llvm::StringRef(entry.code_file).starts_with_insensitive(name)))
    return CatalogMatchKind::Name;
  if (!id_query)
    return std::nullopt;
  if (entry.debug_id.key().starts_with(id_key))
    return CatalogMatchKind::DebugId;
  if (!entry.code_id.empty() && entry.code_id.key().starts_with(id_key))
    return isElfModuleOs(entry.os) ? CatalogMatchKind::BuildId : CatalogMatchKind::CodeId;
  return std::nullopt;
}

} // namespace

CatalogResults CatalogSnapshot::search(const CatalogQuery& query) const {
  CatalogResults results;
  llvm::StringRef text = llvm::StringRef(query.text).trim();
  if (text.empty())
    return results;
  std::string id_key = idKey(text);
  bool id_query = isHexKey(id_key) && id_key.size() >= kMinIdDigits;

  std::vector<CatalogMatch> all;
  for (const CatalogEntry& entry : entries_)
    if (std::optional<CatalogMatchKind> how = matchOf(entry, text, id_key, id_query))
      all.push_back(CatalogMatch{entry, *how});
  std::sort(all.begin(), all.end(), [](const CatalogMatch& a, const CatalogMatch& b) {
    return isBeforeInResults(a.entry, b.entry);
  });

  size_t per_page = query.per_page == 0 ? kDefaultPerPage : std::min(query.per_page, kMaxPerPage);
  results.total = all.size();
  results.pages = std::max<size_t>(1, (all.size() + per_page - 1) / per_page);
  results.page = std::clamp<size_t>(query.page, 1, results.pages);
  size_t first = (results.page - 1) * per_page;
  size_t last = std::min(all.size(), first + per_page);
  results.matches.assign(std::make_move_iterator(all.begin() + static_cast<ptrdiff_t>(first)),
                         std::make_move_iterator(all.begin() + static_cast<ptrdiff_t>(last)));
  if (all.empty() && isHexKey(id_key) && id_key.size() < kMinIdDigits)
    results.note = "an id needs " + std::to_string(kMinIdDigits) + " or more hex digits";
  return results;
}

} // namespace dumpsyms
