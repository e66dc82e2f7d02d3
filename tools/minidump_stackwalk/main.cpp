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
#include <optional>
#include <string>
#include <unistd.h>

namespace {

using namespace dumpsyms;

// A usage error, said as Breakpad says it: the line, then the usage.
int usageError(const DropInRun& run, const char* argv0, const std::string& line) {
  std::fprintf(stderr, "%s: %s\n", argv0, line.c_str());
  printDropInUsage(run, argv0, stderr);
  return 1;
}

// minidump_stackwalk's own options (-f, -c, -t, -b, -d); nullopt when
// `option` is not one of them, else the exit status (-1: go on).
std::optional<int> takeOwnOption(int option, const char* argv0, DropInRun& run, int& thread_index) {
  switch (option) {
  case 'f':
    if (std::strcmp(optarg, "machine") == 0)
      run.machine = true;
    else if (std::strcmp(optarg, "human") == 0)
      run.machine = false;
    else
      return usageError(run, argv0, std::string("Unknown output format '") + optarg + "'");
    return -1;
  case 'c':
    if (thread_index != -1)
      return usageError(run, argv0, "-c and -t cannot be used together.");
    run.print.requesting_thread_only = true;
    return -1;
  case 't':
    if (run.print.requesting_thread_only)
      return usageError(run, argv0, "-c and -t cannot be used together.");
    thread_index = std::atoi(optarg);
    return -1;
  case 'b':
    run.print.brief = true;
    return -1;
  case 'd': // pointer dump: accepted, not printed (docs/STACKWALK.md)
    return -1;
  default:
    return std::nullopt;
  }
}

} // namespace

int main(int argc, char** argv) {
  DropInRun run("minidump_stackwalk", "minidump", minidumpStackwalkManual());
  if (auto status = printManualIfAsked(*run.manual, nullptr, argc, argv))
    return *status;
  int thread_index = -1;
  for (int option; (option = getopt(argc, argv, "bcdf:hmst:v")) != -1;) {
    std::optional<int> status = takeOwnOption(option, argv[0], run, thread_index);
    if (!status)
      status = takeDropInOption(option, argv[0], run);
    if (status && *status != -1)
      return *status;
  }
  if (auto status = takeDropInInputs(argc, argv, optind, run))
    return *status;
  if (thread_index >= 0)
    run.print.thread_index = thread_index;
  run.read = readProcessSnapshot;
  run.unreadable_line = "Minidump " + run.dump + " could not be read";
  return runBreakpadDropIn(run);
}
