// What the minidump_stackwalk and microdump_stackwalk drop-ins share of
// Breakpad's command lines and of their run: the usage text's frame (its
// first lines name the program as invoked, without its directory), the dump
// and symbol paths after the options, and the one read -> walk -> print.
#pragma once

#include "common/command_line/manual.h"
#include "walk/printers/walk_printers.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstdio>
#include <functional>
#include <llvm/Support/Error.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct DropInRun {
  DropInRun(const char* tool_name, const char* kind, const ToolManual& tool_manual)
      : tool(tool_name), dump_kind(kind), manual(&tool_manual) {}

  const char* tool = "";              // "minidump_stackwalk": prefixes its messages
  const char* dump_kind = "";         // "minidump": names the dump in them
  const ToolManual* manual = nullptr; // its options make the usage text
  std::string dump;
  std::vector<std::string> symbol_paths;
  bool machine = false; // Breakpad's pipe-delimited machine form
  bool verbose = false; // -v: where each module's symbols were looked for
  BreakpadPrintOptions print;
  std::function<llvm::Expected<ProcessSnapshot>(const std::string& path)> read;
  // Breakpad's last line about a dump it could not read ("Minidump %s could
  // not be read"), or none.
  std::optional<std::string> unreadable_line;
};

// "Usage: PROGRAM [options] <DUMP_KIND-file> [symbol-path ...]", the
// summary line, then the manual's option lines.
void printDropInUsage(const DropInRun& run, const char* argv0, std::FILE* out);

// The options both drop-ins take alike, from getopt: -m (machine form), -s
// (stack contents), -v (where symbols were looked for) set `run`; -h prints
// the usage and returns 0; any other prints it on stderr and returns 1.
std::optional<int> takeDropInOption(int option, const char* argv0, DropInRun& run);

// The dump and symbol paths after getopt's options (argv[first]...); with
// no dump, Breakpad's "Missing <kind> file" and its usage on stderr, and
// the exit status 1 to return.
std::optional<int> takeDropInInputs(int argc, char** argv, int first, DropInRun& run);

// Reads the dump, walks it with Breakpad's rules and prints it as Breakpad
// would: the exit status.
int runBreakpadDropIn(const DropInRun& run);

} // namespace dumpsyms
