// Reads the DWARF of one ELF image: walks its compile units in parallel and
// hands each unit's functions and lines to the ModuleBuilder, in unit order.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/dwarf/unit_extractor.h"
#include "dump/object/elf_image.h"
#include "symbol_file/model/module_builder.h"

#include <functional>
#include <llvm/Support/Error.h>
#include <memory>
#include <string>
#include <vector>

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

class DwarfInflation;

// The image's compressed DWARF sections inflating in the background: taken
// before the caller reads what else it needs (the symbol table), so that
// both go on at once.
struct StartedDebugInfo {
  StartedDebugInfo();
  StartedDebugInfo(StartedDebugInfo&&);
  StartedDebugInfo& operator=(StartedDebugInfo&&);
  ~StartedDebugInfo();

  bool started = false;
  std::unique_ptr<DwarfInflation> inflation; // nullptr: LLVM reads the file as it is
  std::vector<std::string> warnings;
  bool unreadable = false; // a section claims an impossible size: nothing is read
};
StartedDebugInfo startDebugInfo(const ElfImage& image, unsigned threads);

// Returns the number of compile units read. `started`: from
// startDebugInfo(image, options.threads), else it starts here.
size_t readDebugInfo(const ElfImage& image, const DebugInfoOptions& options, ModuleBuilder& builder,
                     Diagnostics& diagnostics, StartedDebugInfo started = {});

} // namespace dumpsyms
