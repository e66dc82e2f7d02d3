// Finds the files of a release: every regular file under the PATH
// arguments, directories walked recursively and symlinks followed, each
// directory entered at most once (no loops), in a stable order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

struct FoundFile {
  std::string path;     // as reached (through symlinks, not resolved)
  std::string key;      // path relative to its PATH argument (its name for a file argument)
  uint64_t size = 0;    // of the file reached
  bool symlink = false; // reached through a symlink of its own name
  std::string error;    // set when the file could not be examined (dangling symlink, ...)
};

struct ReleaseScan {
  std::vector<FoundFile> files;    // in PATH order, then sorted by key within each PATH
  std::vector<std::string> errors; // PATH arguments that do not exist
};

ReleaseScan scanRelease(const std::vector<std::string>& paths);

} // namespace dumpsyms
