// The first step of a dump: find and open every file it reads. MODULE, ids
// and unwind tables come from the binary; functions and lines from the
// image holding its DWARF (the binary itself, or a separate debug file);
// more symbols from MiniDebugInfo; shared DWARF from a dwz file; split
// units from .dwo/.dwp files (found while reading, through the locator).
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/flows/options.h"
#include "dump/locate/debug_file_locator.h"
#include "dump/object/elf_image.h"

#include <llvm/Support/Error.h>
#include <memory>
#include <string>

namespace dumpsyms {

struct InputFiles {
  std::unique_ptr<ElfImage> binary;
  std::unique_ptr<ElfImage> separate_debug;  // null: the binary holds its DWARF
  std::unique_ptr<ElfImage> mini_debug_info; // .gnu_debugdata, if any
  std::string supplementary_path;            // the dwz file, if any
  std::string dwp_path;                      // the DWARF package, if any
  std::string debug_file_how;                // how separate_debug was found

  const ElfImage& debugImage() const { return separate_debug ? *separate_debug : *binary; }
};

llvm::Expected<InputFiles> openInputFiles(const Options& options, const DebugFileLocator& locator,
                                          Diagnostics& diagnostics);

SearchPaths searchPaths(const Options& options);

} // namespace dumpsyms
