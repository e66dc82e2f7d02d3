#include "object/legacy_zdebug.h"

#include <cstring>
#include <vector>

#include <llvm/Object/ELF.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Compression.h>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

constexpr uint64_t kMaxInflatedSize = uint64_t(16) << 30;

// Appends `bytes` to `image`, aligned to 8, and returns their offset.
uint64_t append(std::string& image, StringRef bytes) {
  image.resize((image.size() + 7) & ~size_t(7), '\0');
  uint64_t offset = image.size();
  image.append(bytes.data(), bytes.size());
  return offset;
}

template <class ELFT>
Expected<std::unique_ptr<MemoryBuffer>> rewrite(MemoryBufferRef input,
                                                const std::function<void(const std::string&)>& warning) {
  using Shdr = typename ELFT::Shdr;
  auto file = ELFFile<ELFT>::create(input.getBuffer());
  if (!file)
    return file.takeError();
  auto headers = file->sections();
  if (!headers)
    return headers.takeError();

  bool any = false;
  for (const Shdr& header : *headers) {
    auto name = file->getSectionName(header);
    if (name && name->starts_with(".zdebug_"))
      any = true;
    else if (!name)
      consumeError(name.takeError());
  }
  if (!any)
    return nullptr;

  std::string image(input.getBuffer());
  std::vector<Shdr> table(headers->begin(), headers->end());
  std::string names;  // the new section-name string table
  names.push_back('\0');

  for (Shdr& header : table) {
    auto name_or_error = file->getSectionName(header);
    std::string name = name_or_error ? name_or_error->str() : std::string();
    if (!name_or_error)
      consumeError(name_or_error.takeError());
    if (StringRef(name).starts_with(".zdebug_") && header.sh_type != ELF::SHT_NOBITS) {
      auto contents = file->getSectionContents(header);
      if (!contents)
        return contents.takeError();
      ArrayRef<uint8_t> data = *contents;
      if (data.size() >= 12 && std::memcmp(data.data(), "ZLIB", 4) == 0) {
        uint64_t size = 0;
        for (int i = 4; i < 12; ++i)
          size = (size << 8) | data[i];
        SmallVector<uint8_t, 0> inflated;
        Error error = size > kMaxInflatedSize
                          ? createStringError(inconvertibleErrorCode(), "implausible size")
                          : compression::zlib::decompress(data.drop_front(12), inflated, size);
        if (error) {
          warning("cannot inflate section '" + name + "': " + toString(std::move(error)));
        } else {
          header.sh_offset = append(image, toStringRef(ArrayRef<uint8_t>(inflated)));
          header.sh_size = inflated.size();
          name = ".debug_" + name.substr(strlen(".zdebug_"));
        }
      }
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

}  // namespace

Expected<std::unique_ptr<MemoryBuffer>> inflateLegacyDebugSections(
    MemoryBufferRef elf, const std::function<void(const std::string&)>& warning) {
  StringRef data = elf.getBuffer();
  if (data.size() < ELF::EI_NIDENT)
    return createStringError(inconvertibleErrorCode(), "truncated ELF header");
  bool is64 = data[ELF::EI_CLASS] == ELF::ELFCLASS64;
  bool little = data[ELF::EI_DATA] != ELF::ELFDATA2MSB;
  if (is64)
    return little ? rewrite<ELF64LE>(elf, warning) : rewrite<ELF64BE>(elf, warning);
  return little ? rewrite<ELF32LE>(elf, warning) : rewrite<ELF32BE>(elf, warning);
}

}  // namespace dumpsyms
