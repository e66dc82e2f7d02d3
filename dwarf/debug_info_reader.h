// Reads the DWARF of one ELF image: walks its compile units in parallel and
// hands each unit's functions and lines to the ModuleBuilder, in unit order.
#pragma once

#include "dwarf/unit_extractor.h"
#include "object/elf_image.h"
#include "symbol_writer/diagnostics.h"
#include "symbol_writer/module_builder.h"

#include <functional>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

struct DebugInfoOptions {
  ExtractOptions extract;
  unsigned threads = 0; // 0: one per core
  std::string dwp_path; // "" : BINARY.dwp beside the file, if any
  // The dwz supplementary file (.gnu_debugaltlink / .debug_sup), if found.
  std::string supplementary_path;
  // Called as units finish, from worker threads.
  std::function<void(size_t done, size_t total)> progress;
};

// Returns the number of compile units read.
size_t readDebugInfo(const ElfImage& image, const DebugInfoOptions& options, ModuleBuilder& builder,
                     Diagnostics& diagnostics);

} // namespace dumpsyms
