#include "dump/flows/path_prefix_map.h"

namespace dumpsyms {

std::optional<PathPrefixMapping> parsePathPrefixMapping(const std::string& text) {
  size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    return std::nullopt;
  return PathPrefixMapping{text.substr(0, equals), text.substr(equals + 1)};
}

std::string mapPathPrefix(const std::string& path, const std::vector<PathPrefixMapping>& mappings) {
  for (const PathPrefixMapping& mapping : mappings)
    if (path.compare(0, mapping.from.size(), mapping.from) == 0)
      return mapping.to + path.substr(mapping.from.size());
  return path;
}

void applyPathPrefixMap(Module& module, const std::vector<PathPrefixMapping>& mappings) {
  if (mappings.empty())
    return;
  for (std::string& file : module.files)
    file = mapPathPrefix(file, mappings);
}

} // namespace dumpsyms
