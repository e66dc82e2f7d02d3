// The walk page prints what `symtool stackwalk --json` would print for the
// same walk, in the same words (walk/printers/walk_json_words.h): the page's
// data- attributes are that JSON's values, so a script reading the page
// and one reading the JSON agree. Nothing is computed here that the walk
// does not hold; every text the dump or the store supplied is escaped.
#include "server/pages/walk_page.h"

#include "server/pages/html.h"
#include "server/pages/page_layout.h"
#include "walk/printers/crash_reason.h"
#include "walk/printers/walk_json_words.h"
#include "walk/printers/walk_printers.h"
#include "walk/stackwalk/symbol_explain.h"

#include <map>

namespace dumpsyms {

namespace {

// ` name="value"`, the value escaped.
std::string attribute(std::string_view name, std::string_view value) {
  std::string out = " ";
  out += name;
  out += "=\"";
  out += escapeHtml(value);
  out += '"';
  return out;
}

const char* yesNo(bool value) {
  return value ? "true" : "false";
}

// Each module's page link, asked of the caller once per module (a frame
// list names the same few modules again and again).
class ModuleLinks {
public:
  explicit ModuleLinks(const WalkPageInput& input) : input_(input) {}

  const std::string& of(const SnapshotModule& module) {
    auto [at, added] = links_.try_emplace(&module);
    if (added && input_.module_link)
      at->second = input_.module_link(pathFileName(module.debug_file), module.debug_id);
    return at->second;
  }

private:
  const WalkPageInput& input_;
  std::map<const SnapshotModule*, std::string> links_;
};

// `text` escaped, inside a link when there is one.
std::string linked(std::string_view text, const std::string& url) {
  if (url.empty())
    return escapeHtml(text);
  return "<a" + attribute("href", url) + ">" + escapeHtml(text) + "</a>";
}

std::string crashSection(const ProcessWalk& walk, const std::vector<const WalkedThread*>& order) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  std::string out = "<section id=\"crash\">\n<h2>Crash</h2>\n";
  if (!snapshot.crash) {
    out += "<p class=\"no-crash\">The dump records no crash";
    if (walk.requesting)
      out += "; it was taken for thread " +
             escapeHtml(std::to_string(walk.threads[*walk.requesting].tid));
    out += ".</p>\n";
  } else {
    const SnapshotCrash& crash = *snapshot.crash;
    std::string reason = crashReason(snapshot);
    std::string address = hexAddress(crashAddress(snapshot));
    std::string tid = std::to_string(crash.thread_id);
    // The crashing thread's section, when the walk has it (the dump's
    // writer may have named a thread it left out).
    std::string thread = escapeHtml(tid);
    for (size_t index = 0; index < order.size(); ++index)
      if (order[index]->tid == crash.thread_id)
        thread =
            "<a" + attribute("href", "#thread-" + std::to_string(index)) + ">" + thread + "</a>";
    out += "<dl class=\"crash\">\n";
    out += "<dt>Reason</dt><dd class=\"reason mono\"" + attribute("data-reason", reason) + ">" +
           escapeHtml(reason) + "</dd>\n";
    out += "<dt>Address</dt><dd class=\"mono\"" + attribute("data-address", address) + ">" +
           escapeHtml(address) + "</dd>\n";
    out += "<dt>Thread</dt><dd class=\"mono\"" + attribute("data-thread", tid) + ">" + thread +
           "</dd>\n";
    out += "</dl>\n";
  }
  if (std::string assertion = assertionText(snapshot); !assertion.empty())
    out += "<p class=\"assertion\">" + escapeHtml(assertion) + "</p>\n";
  out += "</section>\n";
  return out;
}

std::string frameRow(size_t number, const ResolvedStackFrame& frame, ModuleLinks& links) {
  std::string trust = frameTrustName(frame);
  std::string offset = frame.offset ? hexAddress(*frame.offset) : "";
  std::string line = frame.line ? std::to_string(frame.line) : "";
  std::string out =
      "<tr" + attribute("class", "frame trust-" + trust + (frame.inlined ? " inlined" : "")) +
      attribute("data-module", frame.module_name) + attribute("data-function", frame.function) +
      attribute("data-file", frame.file) + attribute("data-line", line) +
      attribute("data-trust", trust) + attribute("data-offset", offset) + ">";
  out += "<td class=\"num\">" + std::to_string(number) + "</td>";

  out += "<td class=\"module\">";
  if (frame.module)
    out += linked(frame.module_name, links.of(*frame.module));
  else
    out += "<span class=\"missing muted\">no module</span>";
  if (frame.unloaded)
    out += " <span class=\"tag\">unloaded</span>";
  out += "</td>";

  out += "<td class=\"function mono\">";
  if (frame.function.empty())
    out += "<span class=\"missing muted\">unknown</span>";
  else
    out += escapeHtml(frame.function);
  // The JSON's function_offset: only a PUBLIC's start is known.
  if (frame.from_public && frame.function_base)
    out += "<span class=\"public-offset\"> + " +
           escapeHtml(hexAddress(frame.address - *frame.function_base)) + "</span>";
  if (frame.inlined)
    out += " <span class=\"tag\">inlined</span>";
  out += "</td>";

  out += "<td class=\"file mono\"";
  if (!frame.file.empty()) {
    out += attribute("title", frame.file) + ">" + escapeHtml(pathFileName(frame.file));
    if (!line.empty())
      out += ":" + line;
  } else {
    out += ">";
  }
  out += "</td>";

  out += "<td class=\"trust\">" + escapeHtml(trust) + "</td>";
  // Without a module there is no offset: the address stands in its place.
  out += "<td" + attribute("class", "num mono") + attribute("title", hexAddress(frame.address)) +
         ">" + escapeHtml(frame.offset ? offset : hexAddress(frame.address)) + "</td>";
  out += "</tr>\n";
  return out;
}

std::string threadSection(size_t index, const WalkedThread& thread, const ProcessWalk& walk,
                          ModuleLinks& links) {
  std::string classes = "thread";
  if (thread.crashed)
    classes += " crashed";
  if (thread.requesting)
    classes += " requesting";
  std::string out = "<section" + attribute("class", classes) +
                    attribute("id", "thread-" + std::to_string(index)) +
                    attribute("data-index", std::to_string(index)) +
                    attribute("data-tid", std::to_string(thread.tid)) +
                    attribute("data-crashed", yesNo(thread.crashed)) +
                    attribute("data-requesting", yesNo(thread.requesting)) + ">\n";
  out += "<h3>Thread <span class=\"mono\">" + std::to_string(thread.tid) + "</span>";
  if (!thread.name.empty())
    out += " <span class=\"thread-name\">" + escapeHtml(thread.name) + "</span>";
  if (thread.crashed)
    out += " <span class=\"tag crashed\">crashed</span>";
  else if (thread.requesting)
    out += " <span class=\"tag requesting\">requested the dump</span>";
  if (std::string signal = threadSignalName(walk, thread); !signal.empty())
    out += " <span class=\"signal mono\">" + escapeHtml(signal) + "</span>";
  out += "</h3>\n";
  if (thread.frames.empty()) {
    out += "<p class=\"missing muted\">No frames.</p>\n";
  } else {
    out += "<div class=\"scroll\"><table class=\"frames\">\n<thead><tr><th class=\"num\">#</th>"
           "<th>Module</th><th>Function</th><th>File:line</th><th>Trust</th>"
           "<th class=\"num\">Offset</th></tr></thead>\n<tbody>\n";
    for (size_t number = 0; number < thread.frames.size(); ++number)
      out += frameRow(number, thread.frames[number], links);
    out += "</tbody>\n</table></div>\n";
  }
  out += "<p class=\"thread-end\">" + escapeHtml(thread.end) + "</p>\n";
  out += "</section>\n";
  return out;
}

// The lines explainSymbolSearch writes about `module`, whole: they start
// "module NAME (DEBUG_FILE ID): ", the label it gives the module.
std::vector<std::string> explainLines(const SnapshotModule& module,
                                      const std::vector<std::string>& explain) {
  std::string debug_file = pathFileName(module.debug_file);
  std::string label =
      "module " + pathFileName(module.code_file) + " (" +
      (debug_file.empty() ? std::string("no debug file") : debug_file) + " " +
      (module.debug_id.empty() ? std::string("no debug id") : module.debug_id.str()) + "): ";
  std::vector<std::string> lines;
  for (const std::string& line : explain)
    if (line.starts_with(label))
      lines.push_back(line);
  return lines;
}

std::string modulesSection(const WalkPageInput& input, ModuleLinks& links) {
  const ProcessWalk& walk = *input.walk;
  std::string out = "<section id=\"modules\">\n<h2>Modules <span class=\"count\">(" +
                    std::to_string(walk.modules.size()) + ")</span></h2>\n";
  out += "<div class=\"scroll\"><table class=\"modules\">\n<thead><tr><th>Name</th>"
         "<th class=\"num\">Base</th><th>Debug file</th><th>Debug id</th><th>Symbols</th>"
         "</tr></thead>\n<tbody>\n";
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    std::string name = pathFileName(module.code_file);
    std::string symbols = symbolStatusName(status);
    // Missing, corrupt, or never looked for: what the search said is shown.
    bool without = symbols != "loaded";
    std::string symbols_class = symbols == "not needed" ? "not-needed" : symbols;
    out += "<tr" + attribute("class", "module symbols-" + symbols_class) +
           attribute("data-name", name) + attribute("data-symbols", symbols) + ">";
    out += "<td" + attribute("title", module.code_file) + ">" +
           (name.empty() ? "<span class=\"missing muted\">unnamed</span>"
                         : linked(name, links.of(module))) +
           "</td>";
    out += "<td class=\"num mono\">" + escapeHtml(hexAddress(module.base)) + "</td>";
    out += "<td class=\"mono\">" + escapeHtml(pathFileName(module.debug_file)) + "</td>";
    out += "<td class=\"mono\">" + escapeHtml(module.debug_id.str()) + "</td>";
    out += "<td class=\"symbols\">";
    out += status.looked_up && without
               ? "<span class=\"tag missing\">" + escapeHtml(symbols) + "</span>"
               : escapeHtml(symbols);
    if (status.looked_up && status.status != SymbolStatus::Loaded && !status.problem.empty())
      out += " " + escapeHtml(status.problem);
    out += "</td></tr>\n";
    // A module no frame needed was not looked for: its status says so,
    // and a line for each of a process's many libraries would bury the
    // searches that matter.
    if (!without || !status.looked_up)
      continue;
    std::vector<std::string> lines = explainLines(module, input.explain);
    if (lines.empty())
      continue;
    out += "<tr class=\"explain\"><td colspan=\"5\"><ul class=\"explain\">\n";
    for (const std::string& line : lines)
      out += "<li class=\"mono\">" + escapeHtml(line) + "</li>\n";
    out += "</ul></td></tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
  const ProcessSnapshot& snapshot = *walk.snapshot;
  if (!snapshot.unloaded_modules.empty()) {
    out += "<h3>Unloaded modules</h3>\n<div class=\"scroll\"><table class=\"modules unloaded\">\n"
           "<thead><tr><th>Name</th><th class=\"num\">Base</th><th class=\"num\">End</th>"
           "<th>Code id</th></tr></thead>\n<tbody>\n";
    for (const SnapshotModule& module : snapshot.unloaded_modules)
      out += "<tr class=\"unloaded-module\"" +
             attribute("data-name", pathFileName(module.code_file)) + "><td" +
             attribute("title", module.code_file) + ">" +
             escapeHtml(pathFileName(module.code_file)) + "</td><td class=\"num mono\">" +
             escapeHtml(hexAddress(module.base)) + "</td><td class=\"num mono\">" +
             escapeHtml(hexAddress(module.end())) + "</td><td class=\"mono\">" +
             escapeHtml(module.code_id.str()) + "</td></tr>\n";
    out += "</tbody>\n</table></div>\n";
  }
  out += "</section>\n";
  return out;
}

} // namespace

std::string renderWalkResult(const WalkPageInput& input) {
  const ProcessWalk& walk = *input.walk;
  const ProcessSnapshot& snapshot = *walk.snapshot;
  // The JSON's thread order: its array index is each section's data-index.
  std::vector<const WalkedThread*> order = requestingFirst(walk);
  ModuleLinks links(input);

  std::string out = "<section id=\"dump\">\n<h1>Walk of <span class=\"mono\">" +
                    escapeHtml(input.dump_name) + "</span></h1>\n";
  out +=
      "<p class=\"dump-facts\"><span" + attribute("data-format", snapshot.format) + ">" +
      escapeHtml(snapshot.format) + "</span>, " + escapeHtml(byteSize(input.dump_size)) +
      (snapshot.cpu != SnapshotCpu::Unknown ? std::string(", ") + escapeHtml(cpuName(snapshot.cpu))
                                            : std::string()) +
      "; <a href=\"/ui/walk\">walk another</a></p>\n";
  if (!walk.symbols_given)
    out += "<p class=\"note\">No symbol store was searched.</p>\n";
  out += "</section>\n";

  out += crashSection(walk, order);

  if (!snapshot.warnings.empty()) {
    out += "<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n";
    for (const std::string& warning : snapshot.warnings)
      out += "<li>" + escapeHtml(warning) + "</li>\n";
    out += "</ul>\n</section>\n";
  }

  out += "<section id=\"threads\">\n<h2>Threads <span class=\"count\">(" +
         std::to_string(order.size()) + ")</span></h2>\n";
  for (size_t index = 0; index < order.size(); ++index)
    out += threadSection(index, *order[index], walk, links);
  out += "</section>\n";

  out += modulesSection(input, links);
  return out;
}

std::string renderWalkForm(bool needs_token, std::string_view error, uint64_t max_bytes) {
  std::string out = "<section id=\"walk-form\">\n<h1>Walk a crash</h1>\n"
                    "<p class=\"intro\">A minidump, an ELF core, or a log holding a microdump: its "
                    "threads' stacks are walked with this store's symbols. Nothing is kept.</p>\n";
  if (!error.empty())
    out += "<p class=\"error\" role=\"alert\">" + escapeHtml(error) + "</p>\n";
  out += "<form id=\"walk\" class=\"stack\" method=\"post\" action=\"/ui/walk\" "
         "enctype=\"multipart/form-data\">\n"
         "<label>Dump (at most " +
         escapeHtml(byteSize(max_bytes)) +
         ") <input type=\"file\" name=\"dump\" required></label>\n";
  out += uploadTokenField(needs_token);
  out += "<div><button type=\"submit\">Walk</button></div>\n</form>\n</section>\n";
  return out;
}

} // namespace dumpsyms
