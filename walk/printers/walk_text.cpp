// Our text form: the crash, then each thread (the crashed one first) as a
// debugger prints a backtrace, each frame saying how it was found.
#include "walk/printers/crash_reason.h"
#include "walk/printers/walk_printers.h"

#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <string>

namespace dumpsyms {

namespace {

void printThread(const WalkedThread& thread, const ProcessWalk& walk, bool first, std::FILE* out) {
  std::string what = thread.crashed      ? " (crashed)"
                     : thread.requesting ? " (requested the dump)"
                                         : "";
  std::string reason;
  if (thread.crashed)
    reason =
        walk.snapshot->format == "core" ? signalName(thread.signal) : crashReason(*walk.snapshot);
  std::fprintf(out, "%sThread %u%s%s%s%s\n", first ? "" : "\n", thread.tid,
               thread.name.empty() ? "" : (" \"" + thread.name + "\"").c_str(), what.c_str(),
               reason.empty() ? "" : " ", reason.c_str());
  size_t number = 0;
  for (const ResolvedStackFrame& frame : thread.frames) {
    std::string where = frame.module
                            ? frame.module_name + " + " + hexAddress(frame.offset.value_or(0))
                            : hexAddress(frame.address);
    std::string name = frame.function.empty() ? "??" : frame.function;
    if (frame.from_public && frame.function_base)
      name += " + " + hexAddress(frame.address - *frame.function_base);
    if (!frame.file.empty())
      name += " at " + pathFileName(frame.file) + ":" + std::to_string(frame.line);
    std::fprintf(out, " #%-3zu %-18s %s  %s%s\n", number, hexAddress(frame.address).c_str(),
                 where.c_str(), name.c_str(), frame.inlined ? " (inlined)" : "");
    if (!frame.inlined)
      std::fprintf(out, "      found by %s\n", trustName(frame.trust));
    ++number;
  }
  std::fprintf(out, "      (%s)\n", thread.end.c_str());
}

} // namespace

void printWalkText(const ProcessWalk& walk, std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  bool first = true;
  if (snapshot.format != "core" && snapshot.crash) {
    std::fprintf(out, "Crash: %s at %s\n", crashReason(snapshot).c_str(),
                 hexAddress(crashAddress(snapshot)).c_str());
    first = false;
  }
  // The Linux streams' gist: the distribution and the command line.
  const auto& streams = snapshot.linux_streams;
  if (auto lsb = streams.find("lsb_release"); lsb != streams.end()) {
    std::string name;
    for (llvm::StringRef rest = lsb->second; !rest.empty();) {
      auto [line, next] = rest.split('\n');
      rest = next;
      for (const char* key : {"DISTRIB_DESCRIPTION=", "PRETTY_NAME="})
        if (line.starts_with(key))
          name = line.drop_front(std::strlen(key)).trim().trim('"').str();
    }
    if (!name.empty()) {
      std::fprintf(out, "System: %s\n", name.c_str());
      first = false;
    }
  }
  if (auto cmdline = streams.find("cmdline"); cmdline != streams.end()) {
    std::string line = cmdline->second;
    while (!line.empty() && line.back() == '\0')
      line.pop_back();
    for (char& c : line)
      if (c == '\0')
        c = ' ';
    std::fprintf(out, "Command line: %s\n", line.c_str());
    first = false;
  }
  // What the crash reporter attached (a microdump's product and process
  // type, Crashpad's annotations).
  for (const auto& [name, value] : snapshot.annotations) {
    std::fprintf(out, "%s: %s\n", name.c_str(), value.c_str());
    first = false;
  }
  if (std::string assertion = assertionText(snapshot); !assertion.empty()) {
    std::fprintf(out, "Assertion: %s\n", assertion.c_str());
    first = false;
  }
  // The thread the dump is for first, then the others in the file's order.
  std::vector<const WalkedThread*> order = requestingFirst(walk);
  for (const WalkedThread* thread : order) {
    if (!first)
      std::fprintf(out, "\n");
    printThread(*thread, walk, true, out);
    first = false;
  }
  bool header = false;
  for (const ModuleSymbolStatus& status : walk.modules) {
    if (!status.looked_up || (status.status == SymbolStatus::Loaded && !status.corrupt))
      continue;
    if (!header)
      std::fprintf(out, "\nModules without symbols in the store:\n");
    header = true;
    const SnapshotModule& module = *status.module;
    std::string name =
        pathFileName(module.code_file.empty() ? module.debug_id.str() : module.code_file);
    std::string why = status.status == SymbolStatus::Loaded
                          ? status.path + ": its symbols have lines that cannot be read"
                          : status.problem;
    std::fprintf(out, "  %s: %s\n", name.c_str(), why.c_str());
  }
}

} // namespace dumpsyms
