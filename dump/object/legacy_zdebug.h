// Legacy `.zdebug_*` sections (gcc -gz=zlib-gnu): a "ZLIB" magic, the
// inflated size as 8 big-endian bytes, then a zlib stream. LLVM 19 no longer
// reads them, so an image holding any is rewritten in memory with each one
// inflated and renamed `.debug_*`; everything downstream then reads plain
// DWARF sections.
#pragma once

#include <functional>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <string>

namespace dumpsyms {

// Returns a rewritten copy of `elf` when it has `.zdebug_*` sections, or
// nullptr when it has none. Sections that fail to inflate are left as they
// are (and stay unread); `warning` is called with what went wrong.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
inflateLegacyDebugSections(llvm::MemoryBufferRef elf,
                           const std::function<void(const std::string&)>& warning);

} // namespace dumpsyms
