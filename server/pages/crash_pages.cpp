#include "server/pages/crash_pages.h"

#include "server/pages/html.h"

#include <algorithm>
#include <fmt/format.h>

namespace dumpsyms {
namespace {

std::string joined(const std::vector<std::string>& items, size_t most = 5) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i)
    out += (i ? ", " : "") + (items[i].empty() ? std::string("(none)") : items[i]);
  if (items.size() > most)
    out += fmt::format(" and {} more", items.size() - most);
  return out;
}

// "2026-12-07T19:35:18.123Z" -> "2026-12-07 19:35 UTC".
std::string shortTime(const std::string& rfc3339_time) {
  if (rfc3339_time.size() < 16)
    return rfc3339_time;
  return rfc3339_time.substr(0, 10) + " " + rfc3339_time.substr(11, 5) + " UTC";
}

std::string signatureLink(const std::string& signature) {
  return fmt::format("<a class=\"signature\" href=\"/ui/signature?s={}\">{}</a>",
                     percentEncode(signature), escapeHtml(signature));
}

std::string crashLink(const std::string& id) {
  return fmt::format("<a class=\"mono\" href=\"/ui/crashes/{}\">bp-{}</a>", escapeHtml(id),
                     escapeHtml(id));
}

std::string crashNav() {
  return "<nav class=\"pages\"><a href=\"/ui/crashes\">Crash groups</a></nav>";
}

} // namespace

std::string sparklineSvg(const std::vector<uint64_t>& daily) {
  if (daily.empty())
    return "";
  uint64_t most = *std::max_element(daily.begin(), daily.end());
  const unsigned width = 3, gap = 1, height = 20;
  unsigned total = static_cast<unsigned>(daily.size()) * (width + gap);
  std::string out = fmt::format(
      "<svg class=\"sparkline\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"crashes a day\">",
      total, height, total, height);
  for (size_t i = 0; i < daily.size(); ++i) {
    unsigned bar = most ? static_cast<unsigned>((daily[i] * height + most - 1) / most) : 0;
    if (daily[i] && bar == 0)
      bar = 1;
    out +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
                    i * (width + gap), height - bar, width, bar, daily[i]);
  }
  return out + "</svg>";
}

std::string renderCrashGroups(const CrashGroupsInput& input) {
  std::string out = "<h1>Crash groups</h1>";
  out += "<form id=\"crash-search\" class=\"inline\" method=\"get\" action=\"/ui/crashes\" "
         "role=\"search\">";
  out += fmt::format("<input type=\"search\" name=\"q\" value=\"{}\" placeholder=\"signature, "
                     "crash id or module debug id\" aria-label=\"search\">",
                     escapeHtml(input.q));
  out += fmt::format("<input type=\"text\" name=\"product\" value=\"{}\" placeholder=\"product\" "
                     "aria-label=\"product\">",
                     escapeHtml(input.product));
  out += fmt::format("<input type=\"text\" name=\"version\" value=\"{}\" placeholder=\"version\" "
                     "aria-label=\"version\">",
                     escapeHtml(input.version));
  out += "<select name=\"days\" aria-label=\"period\">";
  for (unsigned days : {1u, 7u, 30u, 90u, 0u})
    out += fmt::format(
        "<option value=\"{}\"{}>{}</option>", days, days == input.days ? " selected" : "",
        days == 0 ? "all time" : fmt::format("last {} day{}", days, days == 1 ? "" : "s"));
  out += "</select><button type=\"submit\">Search</button></form>";
  if (!input.note.empty())
    out += fmt::format("<p id=\"crash-search-note\" class=\"note\">{}</p>", escapeHtml(input.note));
  if (input.queued)
    out += fmt::format("<p class=\"muted\">{} crash{} waiting to be processed.</p>",
                       groupedNumber(input.queued), input.queued == 1 ? "" : "es");
  if (input.groups.empty())
    return out + "<p class=\"muted\" id=\"no-crashes\">No crashes in this period.</p>";
  out += "<div class=\"scroll\"><table id=\"crash-groups\"><thead><tr><th>Signature</th>"
         "<th class=\"num\">Crashes</th><th>Per day</th><th>First</th><th>Last</th>"
         "<th>Products</th><th>Versions</th></tr></thead><tbody>";
  for (const CrashGroupRow& group : input.groups)
    out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"when\">{}"
                       "</td><td class=\"when\">{}</td><td>{}</td><td>{}</td></tr>",
                       signatureLink(group.signature), groupedNumber(group.count),
                       sparklineSvg(group.daily), escapeHtml(shortTime(group.first)),
                       escapeHtml(shortTime(group.last)), escapeHtml(joined(group.products)),
                       escapeHtml(joined(group.versions)));
  return out + "</tbody></table></div>";
}

std::string renderSignaturePage(const SignaturePageInput& input) {
  const CrashGroupRow& group = input.group;
  std::string out = crashNav();
  out += fmt::format("<h1 class=\"signature\">{}</h1>", escapeHtml(group.signature));
  out += "<dl id=\"group-summary\" class=\"stats\">";
  out += fmt::format("<dt>Crashes</dt><dd>{}</dd>", groupedNumber(group.count));
  out += fmt::format("<dt>First seen</dt><dd>{}</dd>", escapeHtml(shortTime(group.first)));
  out += fmt::format("<dt>Last seen</dt><dd>{}</dd>", escapeHtml(shortTime(group.last)));
  out += fmt::format("<dt>Products</dt><dd>{}</dd>", escapeHtml(joined(group.products, 20)));
  out += fmt::format("<dt>Versions</dt><dd>{}</dd>", escapeHtml(joined(group.versions, 20)));
  out += fmt::format("<dt>Last 30 days</dt><dd>{}</dd></dl>", sparklineSvg(group.daily));
  out += "<div class=\"scroll\"><table id=\"group-crashes\"><thead><tr><th>Crash</th>"
         "<th>Received</th><th>Product</th><th>Version</th><th>Status</th></tr></thead><tbody>";
  for (const CrashRow& crash : input.crashes)
    out +=
        fmt::format("<tr><td>{}</td><td class=\"when\">{}</td><td>{}</td><td>{}</td><td>{}"
                    "</td></tr>",
                    crashLink(crash.id), escapeHtml(shortTime(crash.received)),
                    escapeHtml(crash.product), escapeHtml(crash.version), escapeHtml(crash.status));
  out += "</tbody></table></div>";
  if (input.more)
    out += "<p class=\"muted\">The newest crashes are listed; <code>/api/crashes?signature=</code> "
           "pages through them all.</p>";
  return out;
}

std::string renderCrashPage(const CrashPageInput& input) {
  std::string out = crashNav();
  out += fmt::format("<h1>Crash <span class=\"mono\" id=\"crash-id\">bp-{}</span></h1>",
                     escapeHtml(input.id));
  out += "<dl id=\"crash-summary\" class=\"stats\">";
  out += fmt::format("<dt>Signature</dt><dd id=\"crash-signature\">{}</dd>",
                     input.signature.empty() ? std::string("<span class=\"muted\">not yet "
                                                           "processed</span>")
                                             : signatureLink(input.signature));
  out += fmt::format("<dt>Status</dt><dd id=\"crash-status\">{}</dd>", escapeHtml(input.status));
  out += fmt::format("<dt>Received</dt><dd>{}</dd>", escapeHtml(shortTime(input.received)));
  out += fmt::format("<dt>Product</dt><dd>{}</dd>", escapeHtml(input.product));
  out += fmt::format("<dt>Version</dt><dd>{}</dd>", escapeHtml(input.version));
  out += fmt::format("<dt>Kind</dt><dd>{}</dd>", escapeHtml(input.kind));
  if (!input.crash_reason.empty())
    out += fmt::format("<dt>Crash</dt><dd class=\"mono\">{} at {}</dd>",
                       escapeHtml(input.crash_reason), escapeHtml(input.crash_address));
  if (!input.release.empty())
    out += fmt::format("<dt>Release</dt><dd>{}</dd>", escapeHtml(input.release));
  out += "</dl>";
  if (!input.note.empty())
    out += fmt::format("<p class=\"note\">{}</p>", escapeHtml(input.note));
  if (!input.error.empty())
    out += fmt::format("<p class=\"error\" id=\"crash-error\">{}</p>", escapeHtml(input.error));

  if (!input.missing.empty()) {
    out += "<h2>Missing symbols</h2><p>These modules' symbols were not in the store; the crash "
           "is walked again when they are uploaded:</p><ul id=\"missing-symbols\">";
    for (const MissingSymbolRow& module : input.missing) {
      std::string sym = module.debug_file;
      if (size_t dot = sym.rfind(".pdb"); dot != std::string::npos && dot + 4 == sym.size())
        sym.erase(dot);
      out +=
          fmt::format("<li><span class=\"mono\">{} {}</span><pre class=\"command\">dump_syms {} "
                      "&gt; {}.sym\nsym_upload -p sym-upload-v2 -k KEY {}.sym {}</pre></li>",
                      escapeHtml(module.debug_file), escapeHtml(module.debug_id),
                      escapeHtml(module.code_file.empty() ? module.debug_file : module.code_file),
                      escapeHtml(sym), escapeHtml(sym), escapeHtml(input.server_url));
    }
    out += "</ul>";
  }

  for (const ThreadRows& thread : input.threads) {
    out += fmt::format("<h2>{}</h2><div class=\"scroll\"><table class=\"frames\"><thead><tr>"
                       "<th class=\"num\">#</th><th>Module</th><th>Function</th><th>Source</th>"
                       "<th>Trust</th></tr></thead><tbody>",
                       escapeHtml(thread.title));
    for (const FrameRow& frame : thread.frames)
      out += fmt::format("<tr{}><td class=\"num\">{}</td><td>{}</td><td class=\"mono\">{}</td>"
                         "<td class=\"mono\">{}</td><td>{}</td></tr>",
                         frame.inlined ? " class=\"inlined\"" : "", escapeHtml(frame.index),
                         escapeHtml(frame.module), escapeHtml(frame.function),
                         escapeHtml(frame.source), escapeHtml(frame.trust));
    out += "</tbody></table></div>";
  }

  if (!input.annotations.empty()) {
    out += "<h2>Annotations</h2><div class=\"scroll\"><table id=\"annotations\"><tbody>";
    for (const auto& [name, value] : input.annotations)
      out += fmt::format("<tr><th>{}</th><td class=\"mono\">{}</td></tr>", escapeHtml(name),
                         escapeHtml(value));
    out += "</tbody></table></div>";
  }
  if (!input.files.empty()) {
    out += "<h2>Files</h2><ul id=\"crash-files\">";
    for (const CrashFileRow& file : input.files)
      out += fmt::format("<li><a href=\"{}\" download>{}</a> {} ({})</li>", escapeHtml(file.url),
                         escapeHtml(file.label), escapeHtml(file.filename), byteSize(file.size));
    out += "</ul>";
  }
  if (!input.history.empty()) {
    out += "<h2>Earlier signatures</h2><ul id=\"signature-history\">";
    for (const auto& [signature, until] : input.history)
      out += fmt::format("<li>{} <span class=\"muted\">until {}</span></li>",
                         signatureLink(signature), escapeHtml(shortTime(until)));
    out += "</ul>";
  }
  return out;
}

} // namespace dumpsyms
