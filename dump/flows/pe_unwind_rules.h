// STACK CFI from a PE's exception directory, by its machine: x64's
// UNWIND_INFO and ARM64's packed and .xdata unwind codes. x86 PEs have
// none (their frames are the PDB's FrameData: STACK WIN).
#pragma once

#include "symbol_file/model/module_builder.h"

namespace dumpsyms {

class Diagnostics;
class PeImage;

// Adds the frames to `builder`, at their RVAs plus `bias` (the image base
// where the module's other addresses are virtual, as DWARF's are); entries
// that cannot be read are warnings.
void addPeUnwindRules(const PeImage& pe, ModuleBuilder& builder, Diagnostics& diagnostics,
                      uint64_t bias = 0);

// Whether `pe` has a machine whose exception directory gives STACK CFI.
bool peHasUnwindRules(const PeImage& pe);

// The rules of a function the exception directory leaves out, where the
// platform says what they are: on ARM64 only leaf functions have no entry,
// and Windows' unwinder returns through lr with sp unchanged there (the
// caller's frame cannot be found otherwise: lr is not on the stack). Empty
// elsewhere (x64's leaves return through [rsp], which Breakpad's x64 walker
// finds on its own; x86 has STACK WIN).
std::vector<CfiRule> peLeafFunctionRules(const PeImage& pe);

} // namespace dumpsyms
