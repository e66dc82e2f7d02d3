// microdump_stackwalk: a drop-in for Breakpad's, with its usage, options,
// output and exit status: `microdump_stackwalk [-m] [-s] DUMP
// [SYMBOL_PATH...]`, DUMP a log holding a microdump (the first is walked).
// Unlike Breakpad's it also walks x86_64 and riscv microdumps, and lines
// without a logcat prefix.
#include "tools/microdump_stackwalk/manual.h"
#include "walk/drop_in/breakpad_drop_in.h"
#include "walk/microdump/microdump_snapshot.h"

#include <unistd.h>

int main(int argc, char** argv) {
  using namespace dumpsyms;
  DropInRun run("microdump_stackwalk", "microdump", microdumpStackwalkManual());
  if (auto status = printManualIfAsked(*run.manual, nullptr, argc, argv))
    return *status;
  for (int option; (option = getopt(argc, argv, "hmsv")) != -1;)
    if (auto status = takeDropInOption(option, argv[0], run))
      return *status;
  if (auto status = takeDropInInputs(argc, argv, optind, run))
    return *status;
  run.read = readMicrodumpSnapshot;
  return runBreakpadDropIn(run);
}
