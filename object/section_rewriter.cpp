#include "object/section_rewriter.h"

#include <llvm/Object/ELF.h>
#include <map>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

// Appends `bytes` to `image`, aligned to 8, and returns their offset.
uint64_t append(std::string& image, StringRef bytes) {
  image.resize((image.size() + 7) & ~size_t(7), '\0');
  uint64_t offset = image.size();
  image.append(bytes.data(), bytes.size());
  return offset;
}

template <class ELFT>
Expected<std::unique_ptr<MemoryBuffer>>
rewrite(MemoryBufferRef input, const std::vector<SectionReplacement>& replacements) {
  using Shdr = typename ELFT::Shdr;
  auto file = ELFFile<ELFT>::create(input.getBuffer());
  if (!file)
    return file.takeError();
  auto headers = file->sections();
  if (!headers)
    return headers.takeError();

  std::map<size_t, const SectionReplacement*> by_index;
  for (const SectionReplacement& replacement : replacements)
    by_index[replacement.index] = &replacement;

  std::string image(input.getBuffer());
  std::vector<Shdr> table(headers->begin(), headers->end());
  std::string names(1, '\0'); // the new section-name string table
  for (size_t i = 0; i < table.size(); ++i) {
    Shdr& header = table[i];
    auto old_name = file->getSectionName(header);
    std::string name = old_name ? old_name->str() : std::string();
    if (!old_name)
      consumeError(old_name.takeError());
    auto found = by_index.find(i);
    if (found != by_index.end()) {
      header.sh_offset = append(image, found->second->bytes);
      header.sh_size = found->second->bytes.size();
      header.sh_flags = header.sh_flags & ~uint64_t(ELF::SHF_COMPRESSED);
      if (found->second->name)
        name = *found->second->name;
    }
    header.sh_name = names.size();
    names += name;
    names.push_back('\0');
  }

  uint32_t names_index = file->getHeader().e_shstrndx;
  if (names_index == ELF::SHN_XINDEX)
    names_index = table.empty() ? 0 : uint32_t(table[0].sh_link);
  if (names_index >= table.size())
    return createStringError(inconvertibleErrorCode(), "bad section-name table index");
  table[names_index].sh_offset = append(image, names);
  table[names_index].sh_size = names.size();

  uint64_t table_offset = append(
      image, StringRef(reinterpret_cast<const char*>(table.data()), table.size() * sizeof(Shdr)));
  auto* header = reinterpret_cast<typename ELFT::Ehdr*>(image.data());
  header->e_shoff = table_offset;
  return MemoryBuffer::getMemBufferCopy(image, input.getBufferIdentifier());
}

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
rewriteSections(MemoryBufferRef elf, const std::vector<SectionReplacement>& replacements) {
  StringRef data = elf.getBuffer();
  if (data.size() < ELF::EI_NIDENT)
    return createStringError(inconvertibleErrorCode(), "truncated ELF header");
  bool is64 = data[ELF::EI_CLASS] == ELF::ELFCLASS64;
  bool little = data[ELF::EI_DATA] != ELF::ELFDATA2MSB;
  if (is64)
    return little ? rewrite<ELF64LE>(elf, replacements) : rewrite<ELF64BE>(elf, replacements);
  return little ? rewrite<ELF32LE>(elf, replacements) : rewrite<ELF32BE>(elf, replacements);
}

} // namespace dumpsyms
