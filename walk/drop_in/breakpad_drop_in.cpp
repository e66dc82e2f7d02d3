#include "walk/drop_in/breakpad_drop_in.h"

#include "walk/stackwalk/process_walk.h"
#include "walk/stackwalk/symbol_explain.h"

#include <cstring>

namespace dumpsyms {

void printBreakpadUsage(std::FILE* out, const char* argv0, const char* dump_kind,
                        const char* option_lines) {
  const char* slash = std::strrchr(argv0, '/');
  const char* program = slash ? slash + 1 : argv0;
  std::fprintf(out,
               "Usage: %s [options] <%s-file> [symbol-path ...]\n"
               "\n"
               "Output a stack trace for the provided %s\n"
               "\n"
               "Options:\n"
               "\n"
               "%s",
               program, dump_kind, dump_kind, option_lines);
}

std::optional<int> takeDropInInputs(int argc, char** argv, int first, DropInRun& run,
                                    const char* option_lines) {
  if (first >= argc) {
    std::fprintf(stderr, "%s: Missing %s file\n", argv[0], run.dump_kind);
    printBreakpadUsage(stderr, argv[0], run.dump_kind, option_lines);
    return 1;
  }
  run.dump = argv[first];
  run.symbol_paths.assign(argv + first + 1, argv + argc);
  return std::nullopt;
}

int runBreakpadDropIn(const DropInRun& run) {
  llvm::Expected<ProcessSnapshot> snapshot = run.read(run.dump);
  if (!snapshot) {
    std::fprintf(stderr, "%s: error: %s\n", run.tool,
                 llvm::toString(snapshot.takeError()).c_str());
    if (run.unreadable_line)
      std::fprintf(stderr, "%s\n", run.unreadable_line->c_str());
    return 1;
  }
  WalkOptions walk_options;
  walk_options.breakpad_rules = true;
  ProcessWalk walk = walkProcess(std::move(*snapshot), run.symbol_paths, walk_options);
  if (run.verbose)
    for (const std::string& line : explainSymbolSearch(walk))
      std::fprintf(stderr, "%s: %s\n", run.tool, line.c_str());
  if (run.machine)
    printWalkBreakpadMachine(walk, stdout);
  else
    printWalkBreakpad(walk, run.print, stdout);
  return 0;
}

} // namespace dumpsyms
