#include "dump/object/legacy_zdebug.h"

#include "dump/object/elf_dispatch.h"
#include "dump/object/elf_image.h"
#include "dump/object/section_rewriter.h"
#include "dump/object/zlib_inflate.h"

#include <cstring>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Object/ELF.h>
#include <vector>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

template <class ELFT>
Expected<std::vector<SectionReplacement>>
inflate(MemoryBufferRef input, const std::function<void(const std::string&)>& warning) {
  std::vector<SectionReplacement> out;
  auto elf = readElfSections<ELFT>(input.getBuffer());
  if (!elf)
    return elf.takeError();
  const ELFFile<ELFT>* file = &elf->file;
  const auto* headers = &elf->headers;
  for (size_t i = 0; i < headers->size(); ++i) {
    const auto& header = (*headers)[i];
    auto name = file->getSectionName(header);
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (!name->starts_with(".zdebug_") || header.sh_type == ELF::SHT_NOBITS)
      continue;
    auto contents = file->getSectionContents(header);
    if (!contents)
      return contents.takeError();
    ArrayRef<uint8_t> data = *contents;
    if (data.size() < 12 || std::memcmp(data.data(), "ZLIB", 4) != 0) {
      warning("section '" + name->str() + "' has no ZLIB header");
      continue;
    }
    uint64_t size = 0;
    for (int k = 4; k < 12; ++k)
      size = (size << 8) | data[k];
    if (!plausibleInflatedSize(size, data.size())) {
      warning(implausibleInflation(name->str(), size, data.size()) + ": not inflated");
      continue;
    }
    std::string inflated(size, '\0');
    Error error = inflateZlib(toStringRef(data.drop_front(12)), {inflated.data(), inflated.size()});
    if (error) {
      warning("cannot inflate section '" + name->str() + "': " + toString(std::move(error)));
      continue;
    }
    out.push_back({i, std::move(inflated), ".debug_" + name->substr(strlen(".zdebug_")).str()});
  }
  return out;
}

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
inflateLegacyDebugSections(MemoryBufferRef elf,
                           const std::function<void(const std::string&)>& warning) {
  StringRef data = elf.getBuffer();
  if (data.size() < ELF::EI_NIDENT)
    return createStringError(inconvertibleErrorCode(), "truncated ELF header");
  auto replacements =
      withElfType(data, [&](auto type) { return inflate<decltype(type)>(elf, warning); });
  if (!replacements)
    return replacements.takeError();
  if (replacements->empty())
    return nullptr;
  return replaceSections(elf, *replacements);
}

} // namespace dumpsyms
