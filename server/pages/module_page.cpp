#include "server/pages/module_page.h"

#include "server/pages/coverage_picture.h"
#include "server/pages/html.h"
#include "server/pages/page_urls.h"
#include "walk/printers/walk_printers.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

std::string statCell(std::string_view attribute, std::string_view key, uint64_t value,
                     std::string_view label, std::string_view detail = {}) {
  std::string out = fmt::format("<div><dt>{}</dt><dd {}=\"{}\" data-value=\"{}\">{}", label,
                                attribute, escapeHtml(key), value, groupedNumber(value));
  if (!detail.empty())
    out += fmt::format(" <span class=\"muted\">{}</span>", detail);
  return out + "</dd></div>";
}

std::string functionTable(std::string_view id, std::string_view caption,
                          const std::vector<CoverageFunction>& functions) {
  std::string out = fmt::format("<h3>{}</h3>", caption);
  if (functions.empty())
    return out + fmt::format("<p id=\"{}\" class=\"muted\">None.</p>", id);
  out += fmt::format("<div class=\"scroll\"><table id=\"{}\"><thead><tr><th class=\"num\">Size"
                     "</th><th class=\"num\">Address</th><th>Function</th></tr></thead><tbody>",
                     id);
  for (const CoverageFunction& f : functions)
    out += fmt::format("<tr data-name=\"{0}\" data-size=\"{1}\"><td class=\"num\">{2}</td>"
                       "<td class=\"num mono\">{3}</td><td class=\"name mono\">{0}</td></tr>",
                       escapeHtml(f.name), f.size, groupedNumber(f.size), hexAddress(f.address));
  return out + "</tbody></table></div>";
}

std::string legendItem(const char* cls, std::string_view label, uint64_t bytes, uint64_t whole) {
  return fmt::format("<li><span class=\"key {}\"></span>{} <span class=\"muted\">{} ({})"
                     "</span></li>",
                     cls, label, byteSize(bytes), percentOf(bytes, whole));
}

} // namespace

std::string renderModuleHeading(const ModuleSummary& s) {
  std::string out = "<section id=\"heading\">";
  out += fmt::format("<code id=\"module-line\" class=\"line\">MODULE {} {} {} {}</code>",
                     escapeHtml(s.os), escapeHtml(s.cpu), escapeHtml(s.debug_id.str()),
                     escapeHtml(s.debug_file));
  if (!s.code_id.empty())
    out += fmt::format("<code class=\"line info-line\">INFO CODE_ID {}{}{}</code>",
                       escapeHtml(s.code_id.str()), s.code_file.empty() ? "" : " ",
                       escapeHtml(s.code_file));
  for (const std::string& info : s.info)
    out += fmt::format("<code class=\"line info-line\">INFO {}</code>", escapeHtml(info));
  return out + "</section>";
}

std::string renderRecordCounts(const SymbolStats& st) {
  std::string out = "<h2>Records</h2><dl id=\"counts\" class=\"stats\">";
  // The code's records first, then the two tables (FILE, INLINE_ORIGIN).
  for (size_t i : {2, 3, 4, 5, 6, 7, 8, 0, 1}) {
    const RecordKind& kind = kRecordKinds[i];
    uint64_t value = st.records.*kind.count;
    const char* name = kind.name;
    out += statCell("data-count", name, value, name);
  }
  return out + "</dl>";
}

std::string renderCoverage(const ModuleSummary& s) {
  const SymbolStats& st = s.stats;
  const SymbolCoverage& c = s.coverage;
  uint64_t range = c.end - c.start;
  std::string out = "<section id=\"coverage\"><h2>Coverage</h2>";
  if (range == 0)
    return out + "<p class=\"muted\">The file holds no address records.</p></section>";
  out += fmt::format("<p>Addresses {}\xE2\x80\x93{} ({}), as the file knows them: from its "
                     "lowest record to its highest end. The bars' shares are of this range; "
                     "the numbers below them, as <code>symtool stats</code> gives them, of the "
                     "code the records cover.</p>",
                     hexAddress(c.start), hexAddress(c.end), byteSize(range));
  out += "<ul class=\"legend\">";
  out += legendItem("func-lines", "FUNC with lines", c.with_lines, range);
  out += legendItem("func-no-lines", "FUNC without lines", c.without_lines, range);
  out += legendItem("public", "PUBLIC only", c.public_only, range);
  out += legendItem("none", "nothing", c.nothing, range);
  out += "</ul>";
  out += renderCoverageBar("coverage-bar", "what covers each byte", c.runs, c.start, c.end, false);
  out += fmt::format("<div class=\"bar-scale mono\"><span>{}</span><span>{}</span></div>",
                     hexAddress(c.start), hexAddress(c.end));
  out += "<ul class=\"legend\">";
  out += legendItem("cfi", "STACK CFI", c.cfi_bytes, range);
  out += legendItem("no-cfi", "no STACK CFI", range - std::min(range, c.cfi_bytes), range);
  out += "</ul>";
  out += renderCoverageBar("cfi-bar", "STACK CFI coverage", cfiAsRuns(c), c.start, c.end, true);

  out += "<dl id=\"coverage-numbers\" class=\"stats\">";
  out +=
      statCell("data-bytes", "code", st.code_bytes, "Code known (bytes)", "FUNC, CFI, WIN ranges");
  out += statCell("data-bytes", "function", st.function_bytes, "In a FUNC",
                  percentOf(st.function_bytes, st.code_bytes));
  out += statCell("data-bytes", "line", st.line_bytes, "In a line record",
                  percentOf(st.line_bytes, st.code_bytes));
  out += statCell("data-bytes", "cfi", st.cfi_bytes, "In STACK CFI",
                  percentOf(st.cfi_bytes, st.code_bytes));
  out += statCell("data-bytes", "with-lines", c.with_lines, "FUNC with lines");
  out += statCell("data-bytes", "without-lines", c.without_lines, "FUNC without lines");
  out += statCell("data-bytes", "public-only", c.public_only, "PUBLIC only");
  out += statCell("data-bytes", "nothing", c.nothing, "Nothing");
  out += "</dl>";
  out += functionTable("largest-without-cfi", "Largest functions without STACK CFI",
                       c.largest_without_cfi);
  out += functionTable("largest-without-lines", "Largest functions without line records",
                       c.largest_without_lines);
  return out + "</section>";
}

std::string renderLookupForm(std::string_view action, std::string_view value) {
  return fmt::format("<h2>Look up an address</h2><form id=\"lookup\" class=\"inline\" "
                     "method=\"get\" action=\"{}\"><label for=\"address\">Offset in the module"
                     "</label><input type=\"text\" id=\"address\" name=\"address\" value=\"{}\" "
                     "placeholder=\"0x1234\" inputmode=\"text\" autocomplete=\"off\" "
                     "spellcheck=\"false\"><button type=\"submit\">Look up</button></form>",
                     escapeHtml(action), escapeHtml(value));
}

std::string renderLookupAnswer(const LookupAnswer& a) {
  if (!a.address)
    return fmt::format("<section id=\"lookup-result\"><p class=\"error\">{}</p></section>",
                       escapeHtml(a.error));
  std::string out =
      fmt::format("<section id=\"lookup-result\" data-address=\"{}\">", hexAddress(*a.address));
  if (a.info.public_name) {
    out += fmt::format("<p class=\"lookup-public\" data-name=\"{0}\" data-offset=\"{1}\">{2}: "
                       "<code>{0}+{1}</code> (a PUBLIC symbol: no FUNC covers it)</p>",
                       escapeHtml(*a.info.public_name), hexAddress(a.info.public_offset),
                       hexAddress(*a.address));
    return out + "</section>";
  }
  if (a.info.frames.empty())
    return out + fmt::format("<p class=\"note\">Nothing in the file covers {}.</p></section>",
                             hexAddress(*a.address));
  out += "<div class=\"scroll\"><table><thead><tr><th>Function</th><th>File:line</th>"
         "<th class=\"num\">Starts at</th></tr></thead><tbody>";
  for (const SourceFrame& f : a.info.frames) {
    std::string where = f.file.empty() ? "??" : f.file;
    if (f.line)
      where += ":" + std::to_string(f.line);
    out += fmt::format("<tr class=\"lookup-frame{}\" data-function=\"{}\" data-file=\"{}\" "
                       "data-line=\"{}\" data-inlined=\"{}\"><td class=\"name mono\">{}{}</td>"
                       "<td class=\"name mono\">{}</td><td class=\"num mono\">{}</td></tr>",
                       f.inlined ? " inlined" : "", escapeHtml(f.function), escapeHtml(f.file),
                       f.line, f.inlined ? "true" : "false", escapeHtml(f.function),
                       f.inlined ? " <span class=\"tag\">inlined</span>" : "", escapeHtml(where),
                       hexAddress(f.start));
  }
  return out + "</tbody></table></div></section>";
}

std::string renderModulePage(const ModulePageInput& in) {
  const ModuleSummary& s = *in.summary;
  std::string out = fmt::format("<h1>{} <span class=\"muted mono\">{}</span></h1>",
                                escapeHtml(s.debug_file), escapeHtml(s.debug_id.str()));
  if (in.entry)
    out += fmt::format(
        "<p>{} {}, uploaded {}{}.</p>", byteSize(in.entry->size), escapeHtml(s.os + " " + s.cpu),
        utcTime(in.entry->mtime),
        s.code_file.empty() ? "" : ", code file <code>" + escapeHtml(s.code_file) + "</code>");
  out += renderModuleHeading(s);
  if (s.parse_problems)
    out += fmt::format("<p class=\"note\">The parser could not read {} line{} of this file "
                       "(<a href=\"/ui/check\">check it</a> to see which).</p>",
                       groupedNumber(s.parse_problems), s.parse_problems == 1 ? "" : "s");
  std::string self = in.entry ? modulePageUrl(in.entry->debug_file, in.entry->debug_id) : "";
  out += renderLookupForm(self, in.lookup ? in.lookup->asked : "");
  if (in.lookup)
    out += renderLookupAnswer(*in.lookup);
  out += renderRecordCounts(s.stats);
  out += renderCoverage(s);
  if (in.entry) {
    out += "<h2>Downloads</h2><ul id=\"downloads\">";
    out += fmt::format("<li><a href=\"{}\" download>{}</a> <span class=\"muted\">{}</span></li>",
                       escapeHtml(downloadUrl(in.entry->relative_path)),
                       escapeHtml(in.entry->relative_path), byteSize(in.entry->size));
    for (const std::string& kept : in.entry->kept)
      out += fmt::format("<li><a href=\"{}\" download>{}</a></li>", escapeHtml(downloadUrl(kept)),
                         escapeHtml(kept));
    out += "</ul>";
  }
  if (in.versions.size() > 1) {
    out += "<h2>Versions of this module</h2><div class=\"scroll\"><table id=\"versions\"><thead>"
           "<tr><th>Debug id</th><th>Code id</th><th>Uploaded</th><th class=\"num\">Size</th>"
           "</tr></thead><tbody>";
    for (const CatalogEntry* v : in.versions) {
      bool current = in.entry && v->relative_path == in.entry->relative_path;
      out += fmt::format("<tr><td class=\"mono\"><a href=\"{}\"{}>{}</a></td><td class=\"mono\">"
                         "{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                         escapeHtml(modulePageUrl(v->debug_file, v->debug_id)),
                         current ? " aria-current=\"page\"" : "", escapeHtml(v->debug_id.str()),
                         escapeHtml(v->code_id.str()), utcTime(v->mtime), byteSize(v->size));
    }
    out += "</tbody></table></div>";
  }
  return out;
}

} // namespace dumpsyms
