// STACK CFI from 32-bit ARM's exception tables (.ARM.exidx / .ARM.extab,
// the ARM EHABI), for functions no DWARF CFI describes.
//
// An EHABI entry describes how to unwind from the body of a function (after
// its prologue, before its epilogue), as a list of unwind opcodes. Each
// entry becomes one STACK CFI INIT record covering the function, with the
// rules the opcodes imply; there are no per-instruction deltas.
#pragma once

#include "common/errors/diagnostics.h"
#include "dump/cfi/dwarf_cfi_reader.h"
#include "dump/object/elf_image.h"
#include "symbol_file/model/module.h"

#include <vector>

namespace dumpsyms {

std::vector<CfiFrame> readArmExidx(const ElfImage& image, CfiStats& stats,
                                   Diagnostics& diagnostics);

} // namespace dumpsyms
