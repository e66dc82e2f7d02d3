// One source for what a tool says about itself: its --help (the command
// line's own options, descriptions and subcommands, with the exit statuses
// and examples below), its man page (section 1) and its bash completion are
// all made from the tool's CLI11 definition (or, for the getopt drop-ins,
// from their option table) and its ToolManual, so that they never drift.
// `tool --man` and `tool --bash-completion` print the last two; the build
// writes them into the tree it installs from.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

// An option of a tool that parses with getopt (the Breakpad drop-ins).
struct ManualOption {
  std::string flag;        // "-f"
  std::string argument;    // "FORMAT", "" for a flag
  std::string description; // lines; the first is the summary
};

struct ToolManual {
  std::string name;
  std::string summary;                  // the NAME line: what the tool does, in a few words
  std::string synopsis;                 // for getopt tools (CLI11's: made from the options)
  std::vector<std::string> description; // paragraphs
  std::vector<ManualOption> options;    // getopt tools only
  std::vector<std::pair<std::string, std::string>> exit_statuses; // status, meaning
  std::vector<std::pair<std::string, std::string>> examples;      // command, what it does
  std::vector<std::string> see_also;                              // other tools' names
};

// "NAME VERSION (git REVISION, LLVM X.Y.Z, BUILD TYPE)".
std::string versionText(const std::string& tool);

// Sets the app's description and --help footer (exit statuses, examples)
// and its --version text from the manual.
void applyManual(CLI::App& app, const ToolManual& manual);

// The man page, in man(7) roff; `app` null for getopt tools.
std::string manPage(const ToolManual& manual, const CLI::App* app);

// A bash completion script for the tool: subcommands, then each one's
// options (files where an option takes a value or nothing else fits).
std::string bashCompletion(const ToolManual& manual, const CLI::App* app);

// `--man` or `--bash-completion` as the only argument: prints it and
// returns 0; nullopt otherwise.
std::optional<int> printManualIfAsked(const ToolManual& manual, const CLI::App* app, int argc,
                                      char** argv);

// The option lines of a Breakpad-style usage text ("  -f FORMAT  Output
// format ...", continuation lines indented under the text).
std::string usageOptionLines(const std::vector<ManualOption>& options);

} // namespace dumpsyms
