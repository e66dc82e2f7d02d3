#include "walk/stackwalk/symbol_explain.h"

namespace dumpsyms {

namespace {

// One line each, whatever a server or a file's error text held.
std::string oneLine(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = ' ';
  return text;
}

} // namespace

std::vector<std::string> explainSymbolSearch(const ProcessWalk& walk) {
  std::vector<std::string> lines;
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    std::string debug_file = pathFileName(module.debug_file);
    std::string label =
        "module " + pathFileName(module.code_file) + " (" +
        (debug_file.empty() ? std::string("no debug file") : debug_file) + " " +
        (module.debug_id.empty() ? std::string("no debug id") : module.debug_id.str()) + ")";
    if (!status.looked_up) {
      lines.push_back(oneLine(label + ": not looked for: no walked frame needed it"));
      continue;
    }
    if (!walk.symbols_given && status.attempts.empty()) {
      lines.push_back(oneLine(label + ": not looked for: no symbol store or server was given"));
      continue;
    }
    for (const SymbolAttempt& attempt : status.attempts)
      lines.push_back(oneLine(label + ": " + attempt.where + ": " + attempt.answer));
    if (status.attempts.empty())
      lines.push_back(oneLine(label + ": " + status.problem));
  }
  return lines;
}

} // namespace dumpsyms
