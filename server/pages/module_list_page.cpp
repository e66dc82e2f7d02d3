#include "server/pages/module_list_page.h"

#include "server/pages/html.h"
#include "server/pages/page_urls.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

std::string letterBar(const CatalogModuleList& list) {
  std::string out = "<nav id=\"letters\" class=\"letters\">";
  for (const auto& [letter, count] : list.letters) {
    if (letter == list.letter)
      out += fmt::format("<strong data-letter=\"{0}\" data-count=\"{1}\">{0}</strong>",
                         escapeHtml(letter), count);
    else
      out += fmt::format("<a href=\"{}\" data-letter=\"{}\" data-count=\"{}\" title=\"{} "
                         "module{}\">{}</a>",
                         escapeHtml(moduleListUrl(letter)), escapeHtml(letter), count,
                         groupedNumber(count), count == 1 ? "" : "s", escapeHtml(letter));
  }
  return out + "</nav>";
}

} // namespace

std::string renderModuleListPage(const CatalogModuleList& list) {
  std::string out = "<h1>Modules A\xE2\x80\x93Z</h1>";
  if (list.letters.empty())
    return out + "<p class=\"muted\">The store is empty: <code>symstore add</code> or an upload "
                 "fills it.</p>";
  out += letterBar(list);
  out += fmt::format("<h2>{} module{} under {}</h2>", groupedNumber(list.total),
                     list.total == 1 ? "" : "s", escapeHtml(list.letter));
  out += "<div class=\"scroll\"><table id=\"modules\"><thead><tr><th>Module</th>"
         "<th class=\"num\">Builds</th><th>Newest debug id</th><th>OS, CPU</th>"
         "<th>Uploaded</th></tr></thead><tbody>";
  for (const CatalogModule& m : list.modules) {
    const CatalogEntry& e = m.newest;
    out += fmt::format(
        "<tr class=\"module\" data-debug-file=\"{0}\" data-builds=\"{1}\"><td class=\"name\">"
        "<a href=\"{2}\">{0}</a></td><td class=\"num\"><a href=\"{3}\">{4}</a></td>"
        "<td class=\"mono id\">{5}</td><td class=\"nowrap\">{6}</td><td class=\"when\">{7}</td>"
        "</tr>",
        escapeHtml(m.debug_file), m.builds, escapeHtml(modulePageUrl(e.debug_file, e.debug_id)),
        escapeHtml(searchUrl(m.debug_file)), groupedNumber(m.builds), escapeHtml(e.debug_id.str()),
        escapeHtml(e.os + " " + e.cpu), utcTime(e.mtime));
  }
  out += "</tbody></table></div>";
  return out +
         pageLinks(list.page, list.pages, [&](size_t n) { return moduleListUrl(list.letter, n); });
}

} // namespace dumpsyms
