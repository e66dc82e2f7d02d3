// Source-path rewriting for FILE records, as gcc's -fdebug-prefix-map does
// it at compile time: a path that begins with OLD has that beginning
// replaced by NEW. Release pipelines use it to turn build-machine paths
// into repository-relative or source-server paths.
#pragma once

#include "symbol_file/model/module.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct PathPrefixMapping {
  std::string from;
  std::string to;
};

// "OLD=NEW" (split at the first '='); nullopt without one or with an empty OLD.
std::optional<PathPrefixMapping> parsePathPrefixMapping(const std::string& text);

// `path` rewritten by the first mapping whose OLD begins it (unchanged when none does).
std::string mapPathPrefix(const std::string& path, const std::vector<PathPrefixMapping>& mappings);

// Rewrites every FILE record of `module`.
void applyPathPrefixMap(Module& module, const std::vector<PathPrefixMapping>& mappings);

} // namespace dumpsyms
