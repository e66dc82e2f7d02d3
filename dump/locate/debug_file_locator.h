// Finds the files that hold a binary's debug information, wherever they
// live: the binary itself, a separate debug file (build-id trees, the
// .gnu_debuglink name, debuginfod), the supplementary file of dwz, and the
// .dwo files of split DWARF.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/object/elf_image.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct SearchPaths {
  std::vector<std::string> debug_dirs; // DEBUG_DIR arguments
  std::string system_debug_dir = "/usr/lib/debug";
  bool debuginfod = true; // used only when DEBUGINFOD_URLS is set
};

struct LocatedFile {
  std::string path;
  std::string how; // for -v: "build-id in /usr/lib/debug", ".gnu_debuglink beside the binary", ...
};

class DebugFileLocator {
public:
  DebugFileLocator(std::string binary_path, SearchPaths paths);

  // A separate debug file for `binary` (whose build-id is `build_id`, maybe
  // empty). Candidates that do not match (another build-id, a CRC that is
  // not the link's) are skipped with a warning.
  std::optional<LocatedFile> findDebugFile(const ElfImage& binary,
                                           const std::vector<uint8_t>& build_id,
                                           Diagnostics& diagnostics) const;

  // The supplementary (dwz) file `debug_image` links to, if it has a link.
  std::optional<LocatedFile> findAltFile(const ElfImage& debug_image, const std::string& debug_path,
                                         Diagnostics& diagnostics) const;

  // The .dwo of a split unit: DW_AT_dwo_name as given or under
  // DW_AT_comp_dir, then beside the binary, then in each DEBUG_DIR. "" when
  // none exists.
  std::string findDwo(const std::string& dwo_name, const std::string& comp_dir) const;

private:
  std::vector<std::string> buildIdCandidates(const std::vector<uint8_t>& build_id,
                                             const std::string& suffix) const;

  std::string binary_path_;
  std::string binary_dir_; // absolute
  SearchPaths paths_;
};

} // namespace dumpsyms
