#include "walk/drop_in/breakpad_drop_in.h"

#include "walk/stackwalk/process_walk.h"
#include "walk/stackwalk/symbol_explain.h"

#include <cstring>

namespace dumpsyms {

void printDropInUsage(const DropInRun& run, const char* argv0, std::FILE* out) {
  const char* slash = std::strrchr(argv0, '/');
  const char* program = slash ? slash + 1 : argv0;
  std::string option_lines = usageOptionLines(run.manual->options);
  const char* dump_kind = run.dump_kind;
  std::fprintf(out,
               "Usage: %s [options] <%s-file> [symbol-path ...]\n"
               "\n"
               "Output a stack trace for the provided %s\n"
               "\n"
               "Options:\n"
               "\n"
               "%s",
               program, dump_kind, dump_kind, option_lines.c_str());
}

std::optional<int> takeDropInOption(int option, const char* argv0, DropInRun& run) {
  switch (option) {
  case 'h':
    printDropInUsage(run, argv0, stdout);
    return 0;
  case 'm':
    run.machine = true;
    return std::nullopt;
  case 's':
    run.print.stack_contents = true;
    return std::nullopt;
  case 'v':
    run.verbose = true;
    return std::nullopt;
  default:
    printDropInUsage(run, argv0, stderr);
    return 1;
  }
}

std::optional<int> takeDropInInputs(int argc, char** argv, int first, DropInRun& run) {
  if (first >= argc) {
    std::fprintf(stderr, "%s: Missing %s file\n", argv[0], run.dump_kind);
    printDropInUsage(run, argv[0], stderr);
    return 1;
  }
  run.dump = argv[first];
  run.symbol_paths.assign(argv + first + 1, argv + argc);
  return std::nullopt;
}

int runBreakpadDropIn(const DropInRun& run) {
  llvm::Expected<ProcessSnapshot> snapshot = run.read(run.dump);
  if (!snapshot) {
    std::fprintf(stderr, "%s: error: %s\n", run.tool, llvm::toString(snapshot.takeError()).c_str());
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
