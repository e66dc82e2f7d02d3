// The options that shape a dump, spelled the same in dump_syms and symstore.
#pragma once

#include "dump/flows/options.h"

#include <CLI/CLI.hpp>

namespace dumpsyms {

// -d/--inlines, -c, --names, --map-prefix, --check-cfi, --no-debuginfod,
// --symbol-server.
void addDumpShapeOptions(CLI::App& app, Options& options);

} // namespace dumpsyms
