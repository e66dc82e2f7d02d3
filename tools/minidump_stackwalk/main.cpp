// minidump_stackwalk: a drop-in for Breakpad's, with its usage, options,
// output and exit status, over our minidump reader, walker and printers,
// so that a crash server shelling out to Breakpad's switches by changing a
// path. `minidump_stackwalk [-m] [-f human|machine] [-s] [-b] [-c] [-t N]
// DUMP [SYMBOL_PATH...]`. Options are parsed by getopt, as Breakpad's are
// (on glibc they may follow the dump).
#include "tools/minidump_stackwalk/manual.h"
#include "walk/drop_in/breakpad_drop_in.h"
#include "walk/stackwalk/process_walk.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

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
  DropInRun run;
  run.tool = "minidump_stackwalk";
  run.dump_kind = "minidump";
  BreakpadPrintOptions& options = run.print;
  int thread_index = -1;
  int option;
  while ((option = getopt(argc, argv, "bcdf:hmst:v")) != -1) {
    switch (option) {
    case 'h':
      usage(argv[0], stdout);
      return 0;
    case 'm':
      run.machine = true;
      break;
    case 'f':
      if (std::strcmp(optarg, "machine") == 0) {
        run.machine = true;
      } else if (std::strcmp(optarg, "human") == 0) {
        run.machine = false;
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
      run.verbose = true;
      break;
    case 'd': // pointer dump: accepted, not printed (docs/STACKWALK.md)
      break;
    default:
      usage(argv[0], stderr);
      return 1;
    }
  }
  if (auto status = takeDropInInputs(
          argc, argv, optind, run, usageOptionLines(minidumpStackwalkManual().options).c_str()))
    return *status;
  if (thread_index >= 0)
    options.thread_index = thread_index;
  run.read = readProcessSnapshot;
  run.unreadable_line = "Minidump " + run.dump + " could not be read";
  return runBreakpadDropIn(run);
}
