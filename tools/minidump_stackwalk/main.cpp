// minidump_stackwalk: a drop-in for Breakpad's, with its usage, options,
// output and exit status, over our minidump reader, walker and printers,
// so that a crash server shelling out to Breakpad's switches by changing a
// path. `minidump_stackwalk [-m] [-f human|machine] [-s] [-b] [-c] [-t N]
// DUMP [SYMBOL_PATH...]`. Options are parsed by getopt, as Breakpad's are
// (on glibc they may follow the dump).
#include "tools/minidump_stackwalk/manual.h"
#include "walk/printers/breakpad_usage.h"
#include "walk/stackwalk/process_walk.h"
#include "walk/stackwalk/symbol_explain.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace dumpsyms;

void usage(const char* argv0, std::FILE* out) {
  printBreakpadUsage(out, argv0, "minidump",
                     usageOptionLines(minidumpStackwalkManual().options).c_str());
}

} // namespace

int main(int argc, char** argv) {
  if (auto status = printManualIfAsked(minidumpStackwalkManual(), nullptr, argc, argv))
    return *status;
  bool machine = false, verbose = false;
  BreakpadPrintOptions options;
  int thread_index = -1;
  int option;
  while ((option = getopt(argc, argv, "bcdf:hmst:v")) != -1) {
    switch (option) {
    case 'h':
      usage(argv[0], stdout);
      return 0;
    case 'm':
      machine = true;
      break;
    case 'f':
      if (std::strcmp(optarg, "machine") == 0) {
        machine = true;
      } else if (std::strcmp(optarg, "human") == 0) {
        machine = false;
      } else {
        std::fprintf(stderr, "%s: Unknown output format '%s'\n", argv[0], optarg);
        usage(argv[0], stderr);
        return 1;
      }
      break;
    case 'c':
      if (thread_index != -1) {
        std::fprintf(stderr, "%s: -c and -t cannot be used together.\n", argv[0]);
        usage(argv[0], stderr);
        return 1;
      }
      options.requesting_thread_only = true;
      break;
    case 't':
      if (options.requesting_thread_only) {
        std::fprintf(stderr, "%s: -c and -t cannot be used together.\n", argv[0]);
        usage(argv[0], stderr);
        return 1;
      }
      thread_index = std::atoi(optarg);
      break;
    case 'b':
      options.brief = true;
      break;
    case 's':
      options.stack_contents = true;
      break;
    case 'v':
      verbose = true;
      break;
    case 'd': // pointer dump: accepted, not printed (docs/STACKWALK.md)
      break;
    default:
      usage(argv[0], stderr);
      return 1;
    }
  }
  if (optind >= argc) {
    std::fprintf(stderr, "%s: Missing minidump file\n", argv[0]);
    usage(argv[0], stderr);
    return 1;
  }
  if (thread_index >= 0)
    options.thread_index = thread_index;
  std::string dump = argv[optind];
  std::vector<std::string> symbol_paths(argv + optind + 1, argv + argc);

  auto snapshot = readProcessSnapshot(dump);
  if (!snapshot) {
    std::fprintf(stderr, "minidump_stackwalk: error: %s\n",
                 llvm::toString(snapshot.takeError()).c_str());
    std::fprintf(stderr, "Minidump %s could not be read\n", dump.c_str());
    return 1;
  }
  WalkOptions walk_options;
  walk_options.breakpad_rules = true;
  ProcessWalk walk = walkProcess(std::move(*snapshot), symbol_paths, walk_options);
  if (verbose)
    for (const std::string& line : explainSymbolSearch(walk))
      std::fprintf(stderr, "minidump_stackwalk: %s\n", line.c_str());
  printWalkAsBreakpad(walk, machine, options, stdout);
  return 0;
}
