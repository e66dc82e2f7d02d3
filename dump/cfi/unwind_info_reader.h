// All the unwind information of a binary and its debug file: STACK CFI
// frames from .eh_frame and .debug_frame (each taken from the first image
// that has its bytes) and, on 32-bit ARM, from .ARM.exidx, handed to the
// ModuleBuilder, which keeps one frame per range (.eh_frame's first).
// Nothing here touches the builder: a dump reads them beside the DWARF
// walk and hands them over afterwards.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/cfi/dwarf_cfi_reader.h"
#include "dump/object/elf_image.h"
#include "symbol_file/model/module_builder.h"

#include <vector>

namespace dumpsyms {

struct UnwindFrame {
  CfiFrame frame;
  CfiSource source;
};

// `images` in order of preference; the first is the binary. The frames
// come in the order ModuleBuilder::addCfiFrame should take them.
std::vector<UnwindFrame> readUnwindInfo(const std::vector<const ElfImage*>& images, CfiStats& stats,
                                        Diagnostics& diagnostics);

} // namespace dumpsyms
