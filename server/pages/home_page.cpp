#include "server/pages/home_page.h"

#include "server/pages/html.h"
#include "server/pages/page_urls.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

std::string summaryCell(const char* key, uint64_t value, std::string_view shown,
                        const char* label) {
  return fmt::format("<div><dt>{}</dt><dd data-stat=\"{}\" data-value=\"{}\">{}</dd></div>", label,
                     key, value, shown);
}

std::string idCell(const std::string& id) {
  return fmt::format("<td class=\"mono id\">{}</td>", escapeHtml(id));
}

std::string entryRow(const CatalogEntry& e, const char* row_class, const char* match) {
  std::string attributes = fmt::format(
      "class=\"{}\" data-debug-file=\"{}\" data-debug-id=\"{}\" data-code-id=\"{}\"", row_class,
      escapeHtml(e.debug_file), escapeHtml(e.debug_id.str()), escapeHtml(e.code_id.str()));
  if (match)
    attributes += fmt::format(" data-match=\"{}\"", match);
  return fmt::format(
      "<tr {}><td class=\"name\"><a href=\"{}\">{}</a></td>{}{}<td class=\"nowrap\">{}</td>"
      "<td class=\"when\">{}</td><td class=\"num\">{}</td></tr>",
      attributes, escapeHtml(modulePageUrl(e.debug_file, e.debug_id)), escapeHtml(e.debug_file),
      idCell(e.debug_id.str()), idCell(e.code_id.str()), escapeHtml(e.os + " " + e.cpu),
      utcTime(e.mtime), byteSize(e.size));
}

constexpr const char* kEntryHead =
    "<thead><tr><th>Module</th><th>Debug id</th><th>Code id / build id</th><th>OS, CPU</th>"
    "<th>Uploaded</th><th class=\"num\">Size</th></tr></thead>";

} // namespace

std::string renderHomePage(const HomePageInput& in) {
  const CatalogSummary& s = *in.summary;
  std::string out = "<h1>Symbol store</h1>";
  out += fmt::format(
      "<form id=\"search\" class=\"inline\" method=\"get\" action=\"/\" role=\"search\">"
      "<input type=\"search\" name=\"q\" value=\"{}\" aria-label=\"Search\" "
      "placeholder=\"module name, debug id, code id or build id (8+ hex digits)\" "
      "autocomplete=\"off\" spellcheck=\"false\"{}><button type=\"submit\">Search</button>"
      "<a id=\"all-modules\" href=\"/ui/modules\">All modules A\xE2\x80\x93Z</a></form>",
      escapeHtml(in.query), in.query.empty() ? " autofocus" : "");

  if (in.results) {
    const CatalogResults& r = *in.results;
    out += fmt::format("<h2>{} match{} for <code>{}</code></h2>", groupedNumber(r.total),
                       r.total == 1 ? "" : "es", escapeHtml(in.query));
    if (!r.note.empty())
      out += fmt::format("<p id=\"search-note\" class=\"note\">{}</p>", escapeHtml(r.note));
    if (!r.matches.empty()) {
      out += "<div class=\"scroll\"><table id=\"results\">";
      out += kEntryHead;
      out += "<tbody>";
      for (const CatalogMatch& m : r.matches)
        out += entryRow(m.entry, "result", catalogMatchName(m.how));
      out += "</tbody></table></div>";
    }
    out += pageLinks(r.page, r.pages, [&](size_t n) { return searchUrl(in.query, n); });
  }

  out += "<h2>The store</h2><dl id=\"store-summary\" class=\"stats\">";
  out += summaryCell("modules", s.modules, groupedNumber(s.modules), "Modules");
  out += summaryCell("symbol-files", s.symbol_files, groupedNumber(s.symbol_files), "Symbol files");
  out += summaryCell("kept-files", s.kept_files, groupedNumber(s.kept_files),
                     "Binaries and debug files");
  out += summaryCell("bytes", s.bytes, byteSize(s.bytes), "Size");
  out += "</dl>";
  if (in.problems)
    out += fmt::format("<p class=\"note\">{} file{} in the store could not be read as a symbol "
                       "file of the directory it is in.</p>",
                       groupedNumber(in.problems), in.problems == 1 ? "" : "s");

  out += "<h2>Latest uploads</h2>";
  if (s.newest.empty())
    return out + "<p class=\"muted\">The store is empty: <code>symstore add</code> or an upload "
                 "fills it.</p>";
  out += "<div class=\"scroll\"><table id=\"newest\">";
  out += kEntryHead;
  out += "<tbody>";
  for (const CatalogEntry& e : s.newest)
    out += entryRow(e, "upload", nullptr);
  return out + "</tbody></table></div>";
}

} // namespace dumpsyms
