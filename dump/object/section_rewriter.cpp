#include "dump/object/section_rewriter.h"

#include "dump/object/elf_dispatch.h"

#include <algorithm>
#include <cstring>
#include <llvm/Object/ELF.h>
#include <map>

namespace dumpsyms {

using namespace llvm;
using namespace llvm::object;

namespace {

uint64_t align8(uint64_t n) {
  return (n + 7) & ~uint64_t(7);
}

template <class ELFT>
Expected<RewrittenElf> rewrite(MemoryBufferRef input, const std::vector<SectionPlan>& plan) {
  using Shdr = typename ELFT::Shdr;
  auto elf = readElfSections<ELFT>(input.getBuffer());
  if (!elf)
    return elf.takeError();
  const ELFFile<ELFT>* file = &elf->file;
  const auto* headers = &elf->headers;

  std::map<size_t, size_t> by_index; // section index -> plan entry
  for (size_t k = 0; k < plan.size(); ++k)
    by_index[plan[k].index] = k;

  // The new section headers and names; offsets assigned as laid out.
  std::vector<Shdr> table(headers->begin(), headers->end());
  std::string names(1, '\0');
  uint64_t end = align8(input.getBufferSize());
  std::vector<uint64_t> content_offset(plan.size());
  for (size_t i = 0; i < table.size(); ++i) {
    Shdr& header = table[i];
    auto old_name = file->getSectionName(header);
    std::string name = old_name ? old_name->str() : std::string();
    if (!old_name)
      consumeError(old_name.takeError());
    auto planned = by_index.find(i);
    if (planned != by_index.end()) {
      const SectionPlan& entry = plan[planned->second];
      content_offset[planned->second] = end;
      header.sh_offset = end;
      header.sh_size = entry.size;
      header.sh_flags = header.sh_flags & ~uint64_t(ELF::SHF_COMPRESSED);
      end = align8(end + entry.size + entry.guard);
      if (entry.name)
        name = *entry.name;
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
  table[names_index].sh_offset = end;
  table[names_index].sh_size = names.size();
  end = align8(end + names.size());
  uint64_t table_offset = end;
  end += table.size() * sizeof(Shdr);

  RewrittenElf out;
  out.buffer = WritableMemoryBuffer::getNewUninitMemBuffer(end, input.getBufferIdentifier());
  if (!out.buffer)
    return createStringError(inconvertibleErrorCode(), "out of memory for a %llu-byte copy",
                             static_cast<unsigned long long>(end));
  char* base = out.buffer->getBufferStart();
  // The original bytes, but for those of the replaced sections, which
  // nothing reads any more (they are most of the file when it is compressed).
  std::vector<std::pair<uint64_t, uint64_t>> skipped;
  for (const SectionPlan& entry : plan) {
    const Shdr& old_header = (*headers)[entry.index];
    if (old_header.sh_type != ELF::SHT_NOBITS)
      skipped.push_back({old_header.sh_offset, old_header.sh_offset + old_header.sh_size});
  }
  std::sort(skipped.begin(), skipped.end());
  uint64_t cursor = 0, size = input.getBufferSize();
  for (auto [from, to] : skipped) {
    from = std::min(from, size);
    if (from > cursor)
      std::memcpy(base + cursor, input.getBufferStart() + cursor, from - cursor);
    cursor = std::max(cursor, std::min(to, size));
  }
  if (cursor < size)
    std::memcpy(base + cursor, input.getBufferStart() + cursor, size - cursor);
  std::memset(base + size, 0, align8(input.getBufferSize()) - size);
  std::memcpy(base + table[names_index].sh_offset, names.data(), names.size());
  std::memcpy(base + table_offset, table.data(), table.size() * sizeof(Shdr));
  reinterpret_cast<typename ELFT::Ehdr*>(base)->e_shoff = table_offset;
  for (size_t k = 0; k < plan.size(); ++k) {
    out.contents.emplace_back(base + content_offset[k], plan[k].size);
    std::memset(base + content_offset[k] + plan[k].size, 0,
                align8(content_offset[k] + plan[k].size + plan[k].guard) -
                    (content_offset[k] + plan[k].size));
  }
  return out;
}

} // namespace

Expected<RewrittenElf> rewriteSections(MemoryBufferRef elf, const std::vector<SectionPlan>& plan) {
  if (elf.getBufferSize() < ELF::EI_NIDENT)
    return createStringError(inconvertibleErrorCode(), "truncated ELF header");
  return withElfType(elf.getBuffer(),
                     [&](auto type) { return rewrite<decltype(type)>(elf, plan); });
}

Expected<std::unique_ptr<MemoryBuffer>>
replaceSections(MemoryBufferRef elf, const std::vector<SectionReplacement>& replacements) {
  std::vector<SectionPlan> plan;
  for (const SectionReplacement& r : replacements)
    plan.push_back({r.index, r.bytes.size(), r.name});
  auto rewritten = rewriteSections(elf, plan);
  if (!rewritten)
    return rewritten.takeError();
  for (size_t k = 0; k < replacements.size(); ++k)
    std::memcpy(rewritten->contents[k].data(), replacements[k].bytes.data(),
                replacements[k].bytes.size());
  return std::move(rewritten->buffer);
}

} // namespace dumpsyms
