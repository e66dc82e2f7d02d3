// microdump_stackwalk: a drop-in for Breakpad's, with its usage, options,
// output and exit status: `microdump_stackwalk [-m] [-s] DUMP
// [SYMBOL_PATH...]`, DUMP a log holding a microdump (the first is walked).
// Unlike Breakpad's it also walks x86_64 and riscv microdumps, and lines
// without a logcat prefix.
#include "tools/microdump_stackwalk/manual.h"
#include "walk/drop_in/breakpad_drop_in.h"
#include "walk/microdump/microdump_snapshot.h"

#include <cstdio>
#include <unistd.h>

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
  DropInRun run;
  run.tool = "microdump_stackwalk";
  run.dump_kind = "microdump";
  int option;
  while ((option = getopt(argc, argv, "hmsv")) != -1) {
    switch (option) {
    case 'h':
      usage(argv[0], stdout);
      return 0;
    case 'm':
      run.machine = true;
      break;
    case 's':
      run.print.stack_contents = true;
      break;
    case 'v':
      run.verbose = true;
      break;
    default:
      usage(argv[0], stderr);
      return 1;
    }
  }
  if (auto status = takeDropInInputs(
          argc, argv, optind, run, usageOptionLines(microdumpStackwalkManual().options).c_str()))
    return *status;
  run.read = readMicrodumpSnapshot;
  return runBreakpadDropIn(run);
}
