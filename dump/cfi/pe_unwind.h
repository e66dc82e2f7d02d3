// What the readers of a PE's exception directory (.pdata and the .xdata it
// points at) share: how they reach the image's bytes and what they return.
#pragma once

#include "symbol_file/model/module.h"

#include <cstdint>
#include <functional>
#include <llvm/ADT/ArrayRef.h>
#include <string>
#include <vector>

namespace dumpsyms {

// `size` bytes of the image at `rva`; empty when they are not in the file.
using ImageBytes = std::function<llvm::ArrayRef<uint8_t>(uint32_t rva, uint32_t size)>;

struct PeUnwindResult {
  std::vector<CfiFrame> frames;      // in .pdata order, addresses are RVAs
  std::vector<std::string> problems; // entries skipped, and why
};

} // namespace dumpsyms
