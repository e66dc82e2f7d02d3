#include "server/downloads/elf_section_span.h"

#include "dump/object/elf_dispatch.h"

#include <llvm/Object/ELF.h>
#include <llvm/Support/MemoryBuffer.h>

namespace dumpsyms {
namespace {

template <typename ELFT> ElfSectionSpan findIn(llvm::StringRef bytes, const std::string& name) {
  ElfSectionSpan none;
  llvm::Expected<llvm::object::ELFFile<ELFT>> elf = llvm::object::ELFFile<ELFT>::create(bytes);
  if (!elf) {
    llvm::consumeError(elf.takeError());
    return none;
  }
  auto sections = elf->sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return none;
  }
  for (const auto& section : *sections) {
    llvm::Expected<llvm::StringRef> section_name = elf->getSectionName(section);
    if (!section_name) {
      llvm::consumeError(section_name.takeError());
      continue;
    }
    if (*section_name != name)
      continue;
    if (section.sh_type == llvm::ELF::SHT_NOBITS)
      return ElfSectionSpan{ElfSectionSpan::Kind::NoBits, 0, 0};
    uint64_t offset = section.sh_offset, size = section.sh_size;
    // A section whose bytes lie past the file is corrupt: nothing to serve.
    if (offset > bytes.size() || size > bytes.size() - offset)
      return none;
    return ElfSectionSpan{ElfSectionSpan::Kind::Bytes, offset, size};
  }
  return none;
}

} // namespace

ElfSectionSpan findElfSection(int fd, uint64_t size, const std::string& name) {
  // Mapped, not read: only the headers and the name table are touched.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getOpenFile(
      fd, "elf", size, /*RequiresNullTerminator=*/false, /*IsVolatile=*/false);
  if (!buffer)
    return {};
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < llvm::ELF::EI_NIDENT || !bytes.starts_with("\x7f"
                                                                "ELF"))
    return {};
  return withElfType(bytes, [&](auto type) {
    using ELFT = decltype(type);
    return findIn<ELFT>(bytes, name);
  });
}

} // namespace dumpsyms
