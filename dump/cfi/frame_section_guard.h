// A check of .eh_frame and .debug_frame before LLVM parses them. LLVM 19's
// DWARFDebugFrame::parse files CIEs in a DenseMap keyed by offset and finds
// an FDE's CIE with operator[]: a CIE pointer that makes the key all ones
// (or all ones but one) hits DenseMap's reserved empty (tombstone) key and
// corrupts the map, which crashes it (llvm-dwarfdump --eh-frame too); an
// entry whose length runs past the section's end crashes it as well. Such an
// entry (or an FDE whose CIE pointer names no CIE before it) is where the
// section stops making sense, so only the entries before it go to LLVM.
#pragma once

#include <cstdint>
#include <llvm/ADT/StringRef.h>
#include <string>

namespace dumpsyms {

struct FramePrefix {
  uint64_t size = 0;   // bytes of whole, well-linked entries from the start
  std::string problem; // why the rest is left out; "" when nothing is
};

FramePrefix wellLinkedFramePrefix(llvm::StringRef bytes, bool is_eh_frame, bool little_endian);

} // namespace dumpsyms
