// CatalogSnapshot::moduleList: the store's modules by first letter.
#include "store/catalog/catalog_order.h"
#include "store/catalog/store_catalog.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace dumpsyms {
namespace {

std::string letterOf(const std::string& name) {
  unsigned char first = name.empty() ? 0 : static_cast<unsigned char>(name[0]);
  if (std::isalpha(first) && first < 0x80)
    return std::string(1, static_cast<char>(std::toupper(first)));
  return "#";
}

} // namespace

CatalogModuleList CatalogSnapshot::moduleList(const std::string& letter, size_t page,
                                              size_t per_page) const {
  // One module per debug_file, with its newest build.
  std::map<std::string, CatalogModule> modules;
  for (const CatalogEntry& entry : entries_) {
    CatalogModule& module = modules[entry.debug_file];
    if (module.builds++ == 0 || isNewerEntry(entry, module.newest))
      module.newest = entry;
    module.debug_file = entry.debug_file;
  }
  std::map<std::string, size_t> counts;
  for (const auto& [name, module] : modules)
    ++counts[letterOf(name)];

  CatalogModuleList out;
  for (char c = 'A'; c <= 'Z'; ++c)
    if (auto found = counts.find(std::string(1, c)); found != counts.end())
      out.letters.push_back(*found);
  if (auto other = counts.find("#"); other != counts.end())
    out.letters.push_back(*other);
  if (out.letters.empty())
    return out;
  std::string wanted =
      letter.size() == 1 && std::isalpha(static_cast<unsigned char>(letter[0]))
          ? std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(letter[0]))))
          : letter;
  out.letter = counts.count(wanted) ? wanted : out.letters.front().first;

  std::vector<const CatalogModule*> listed;
  for (const auto& [name, module] : modules)
    if (letterOf(name) == out.letter)
      listed.push_back(&module);
  std::sort(listed.begin(), listed.end(), [](const CatalogModule* a, const CatalogModule* b) {
    return isBeforeInResults(a->newest, b->newest);
  });
  per_page = std::max<size_t>(1, per_page);
  out.total = listed.size();
  out.pages = std::max<size_t>(1, (out.total + per_page - 1) / per_page);
  out.page = std::clamp<size_t>(page, 1, out.pages);
  size_t first = (out.page - 1) * per_page;
  for (size_t i = first; i < std::min(out.total, first + per_page); ++i)
    out.modules.push_back(*listed[i]);
  return out;
}

} // namespace dumpsyms
