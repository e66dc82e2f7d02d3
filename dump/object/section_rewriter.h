// Builds an in-memory copy of an ELF file in which some sections get new
// contents (and, if asked, new names): the new contents are laid out after
// the original bytes, followed by a rewritten section header table. Used to
// hand LLVM sections it cannot read as they are (legacy .zdebug_*, DWARF
// units with broken headers) or that it would inflate one by one.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct SectionPlan {
  size_t index = 0;                // section header index
  uint64_t size = 0;               // size of the new contents
  std::optional<std::string> name; // a new name, else the old one
  uint64_t guard = 0;              // zero bytes to follow the contents
};

// The copy, with one slice per plan entry for the caller to fill (in any
// order, from any thread) before using the buffer. The planned sections
// lose SHF_COMPRESSED: their new bytes are plain.
struct RewrittenElf {
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer;
  std::vector<llvm::MutableArrayRef<char>> contents;
};

llvm::Expected<RewrittenElf> rewriteSections(llvm::MemoryBufferRef elf,
                                             const std::vector<SectionPlan>& plan);

// For callers that have the new contents at hand.
struct SectionReplacement {
  size_t index = 0;
  std::string bytes;
  std::optional<std::string> name;
};
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
replaceSections(llvm::MemoryBufferRef elf, const std::vector<SectionReplacement>& replacements);

} // namespace dumpsyms
