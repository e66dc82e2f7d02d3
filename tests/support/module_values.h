// Module values the unit tests build by hand.
#pragma once

#include "symbol_file/model/module.h"

#include <string>
#include <vector>

namespace dumpsyms::test {

// A FUNC with its ranges and line records.
inline Function function(std::string name, std::vector<AddressRange> ranges,
                         std::vector<SourceLine> lines = {}) {
  Function f;
  f.name = std::move(name);
  f.ranges = std::move(ranges);
  f.lines = std::move(lines);
  return f;
}

} // namespace dumpsyms::test
