#include "walk/printers/breakpad_usage.h"

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

void printWalkAsBreakpad(const ProcessWalk& walk, bool machine, const BreakpadPrintOptions& options,
                         std::FILE* out) {
  if (machine)
    printWalkBreakpadMachine(walk, out);
  else
    printWalkBreakpad(walk, options, out);
}

} // namespace dumpsyms
