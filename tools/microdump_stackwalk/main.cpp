// microdump_stackwalk: a drop-in for Breakpad's, with its usage, options,
// output and exit status: `microdump_stackwalk [-m] [-s] DUMP
// [SYMBOL_PATH...]`, DUMP a log holding a microdump (the first is walked).
// Unlike Breakpad's it also walks x86_64 and riscv microdumps, and lines
// without a logcat prefix.
#include "tools/microdump_stackwalk/manual.h"
#include "walk/microdump/microdump_snapshot.h"
#include "walk/printers/breakpad_usage.h"
#include "walk/stackwalk/process_walk.h"
#include "walk/stackwalk/symbol_explain.h"

#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace dumpsyms;

void usage(const char* argv0, std::FILE* out) {
  printBreakpadUsage(out, argv0, "microdump",
                     usageOptionLines(microdumpStackwalkManual().options).c_str());
}

} // namespace

int main(int argc, char** argv) {
  if (auto status = printManualIfAsked(microdumpStackwalkManual(), nullptr, argc, argv))
    return *status;
  bool machine = false, verbose = false;
  BreakpadPrintOptions options;
  int option;
  while ((option = getopt(argc, argv, "hmsv")) != -1) {
    switch (option) {
    case 'h':
      usage(argv[0], stdout);
      return 0;
    case 'm':
      machine = true;
      break;
    case 's':
      options.stack_contents = true;
      break;
    case 'v':
      verbose = true;
      break;
    default:
      usage(argv[0], stderr);
      return 1;
    }
  }
  if (optind >= argc) {
    std::fprintf(stderr, "%s: Missing microdump file\n", argv[0]);
    usage(argv[0], stderr);
    return 1;
  }
  std::string dump = argv[optind];
  std::vector<std::string> symbol_paths(argv + optind + 1, argv + argc);
  auto snapshot = readMicrodumpSnapshot(dump);
  if (!snapshot) {
    std::fprintf(stderr, "microdump_stackwalk: error: %s\n",
                 llvm::toString(snapshot.takeError()).c_str());
    return 1;
  }
  WalkOptions walk_options;
  walk_options.breakpad_rules = true;
  ProcessWalk walk = walkProcess(std::move(*snapshot), symbol_paths, walk_options);
  if (verbose)
    for (const std::string& line : explainSymbolSearch(walk))
      std::fprintf(stderr, "microdump_stackwalk: %s\n", line.c_str());
  printWalkAsBreakpad(walk, machine, options, stdout);
  return 0;
}
