// Builds an in-memory copy of an ELF file with some sections' contents
// replaced (and, if asked, renamed): the new bytes are appended, the section
// header table is rewritten after them. Used to hand LLVM sections it cannot
// read as they are (legacy .zdebug_*, DWARF units with broken headers).
#pragma once

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct SectionReplacement {
  size_t index = 0; // section header index
  std::string bytes;
  std::optional<std::string> name; // a new name, else the old one
};

// The replaced sections lose SHF_COMPRESSED: their new bytes are plain.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
rewriteSections(llvm::MemoryBufferRef elf, const std::vector<SectionReplacement>& replacements);

} // namespace dumpsyms
