#include "server/pages/check_page.h"

#include "server/pages/html.h"
#include "server/pages/page_layout.h"
#include "walk/printers/walk_printers.h"

#include <fmt/format.h>

namespace dumpsyms {
namespace {

std::string nameList(const char* id, const char* sign, const char* heading,
                     const std::vector<std::string>& names) {
  if (names.empty())
    return "";
  std::string out = fmt::format("<h3>{} ({})</h3><ul id=\"{}\" class=\"mono\">", heading,
                                groupedNumber(names.size()), id);
  for (const std::string& name : names)
    out += fmt::format("<li data-name=\"{0}\">{1} {0}</li>", escapeHtml(name), sign);
  return out + "</ul>";
}

std::string renderDiff(const std::string& other, const SymbolDiff& d) {
  std::string out = fmt::format(
      "<section id=\"diff\"><h2>Compared with <code>{}</code></h2><p class=\"muted\">As "
      "<code>symtool diff CHECKED SECOND</code> prints it: the checked file first.</p>",
      escapeHtml(other));
  if (d.empty())
    return out + "<p class=\"ok\">The same functions at the same places with the same lines."
                 "</p></section>";
  out += fmt::format("<p>{} added, {} removed, {} moved, {} with other lines.</p>",
                     groupedNumber(d.added.size()), groupedNumber(d.removed.size()),
                     groupedNumber(d.moved.size()), groupedNumber(d.lines_changed.size()));
  if (d.header_differs)
    out += "<p class=\"note\" id=\"header-differs\">The MODULE or INFO CODE_ID lines differ: "
           "these are symbols of different builds.</p>";
  out += nameList("added", "+", "Only in the second file", d.added);
  out += nameList("removed", "-", "Only in the checked file", d.removed);
  if (!d.moved.empty()) {
    out += fmt::format("<h3>Moved ({})</h3><ul id=\"moved\" class=\"mono\">",
                       groupedNumber(d.moved.size()));
    for (const FunctionMove& m : d.moved)
      out += fmt::format("<li data-name=\"{0}\">~ {0} from {1} to {2}</li>", escapeHtml(m.name),
                         hexAddress(m.from), hexAddress(m.to));
    out += "</ul>";
  }
  out += nameList("lines-changed", "!", "Same place, other line records", d.lines_changed);
  return out + "</section>";
}

} // namespace

std::string renderCheckResult(const CheckPageInput& in) {
  const ModuleSummary& s = *in.summary;
  std::string out =
      fmt::format("<h1>Checked <code>{}</code></h1><p>{}; not stored.{}</p>",
                  escapeHtml(in.file_name), byteSize(in.size),
                  in.stored_page.empty() ? ""
                                         : fmt::format(" The store has <a href=\"{}\">this module"
                                                       "</a>.",
                                                       escapeHtml(in.stored_page)));
  out += "<section id=\"validation\"><h2>Validation</h2>";
  if (in.problem_count == 0) {
    out += "<p class=\"ok\" id=\"no-problems\">No problems: Breakpad's processor reads every "
           "line.</p>";
  } else {
    out += fmt::format("<p class=\"error\">{} problem{} (what <code>symtool validate</code> "
                       "prints).</p><ol id=\"problems\" class=\"problems\">",
                       groupedNumber(in.problem_count), in.problem_count == 1 ? "" : "s");
    for (const ValidationProblem& p : in.problems)
      out += fmt::format("<li class=\"problem\" data-line=\"{}\">{}: {}</li>", p.line,
                         p.line ? "line " + std::to_string(p.line) : std::string("the file"),
                         escapeHtml(p.message));
    out += "</ol>";
    if (in.problem_count > in.problems.size())
      out += fmt::format("<p class=\"muted\">The first {} are shown.</p>",
                         groupedNumber(in.problems.size()));
  }
  out += "</section>";
  out += renderModuleHeading(s);
  if (in.lookup)
    out += "<h2>Address</h2>" + renderLookupAnswer(*in.lookup);
  out += renderRecordCounts(s.stats);
  out += renderCoverage(s);
  if (in.diff)
    out += renderDiff(in.other_name, *in.diff);
  return out;
}

std::string renderCheckForm(bool needs_token, std::string_view error, uint64_t max_bytes) {
  std::string out = "<h1>Check symbols</h1><p>Upload a Breakpad symbol file to see what it "
                    "covers and what Breakpad's processor would make of it. It is not stored."
                    "</p>";
  if (!error.empty())
    out += fmt::format("<p class=\"error\">{}</p>", escapeHtml(error));
  out += fmt::format(
      "<form id=\"check\" class=\"stack\" method=\"post\" action=\"/ui/check\" "
      "enctype=\"multipart/form-data\"><label>Symbol file (.sym, at most {}) <input "
      "type=\"file\" name=\"sym\" required></label><label>Compare with (optional) <input "
      "type=\"file\" name=\"other\"></label><label>Look up an offset (optional) <input "
      "type=\"text\" name=\"address\" placeholder=\"0x1234\" autocomplete=\"off\" "
      "spellcheck=\"false\"></label>{}<div><button type=\"submit\">Check</button></div></form>",
      byteSize(max_bytes), uploadTokenField(needs_token));
  return out;
}

} // namespace dumpsyms
