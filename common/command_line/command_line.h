// What every tool's command line does alike: parsing with its usage
// errors and exit statuses, and the handlers that turn running out of
// memory or an LLVM fatal error on corrupt input into a one-line error and
// exit status 1 instead of a crash.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

namespace dumpsyms {

// `tool` prefixes the messages; *input (when set) names the file at fault.
void installInputErrorHandlers(const char* tool, const std::string* const* input);

// Parses the command line. Returns the exit status to end with (help,
// version: 0; a usage error, said on stderr: 2), or nullopt to go on.
std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv);

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

} // namespace dumpsyms
