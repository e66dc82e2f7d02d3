// The options of a whole dump made inside a test or a fuzz target: every
// record (-d, inlined calls included), on one thread, never asking a
// debuginfod server, with no progress or warnings printed.
#pragma once

#include "dump/flows/options.h"

#include <string>

namespace dumpsyms::test_support {

inline Options wholeDumpOptions(std::string binary) {
  Options options;
  options.binary = std::move(binary);
  options.inlines = true;
  options.jobs = 1;
  options.no_debuginfod = true;
  options.quiet = true;
  return options;
}

} // namespace dumpsyms::test_support
