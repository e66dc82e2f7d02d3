#include "tests/support/elf_builder.h"

#include <cstring>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms::test_support {

namespace {

using namespace llvm::ELF;

template <typename T> void put(std::vector<uint8_t>& out, size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}

} // namespace

std::vector<uint8_t> elfAround(std::vector<ElfSection> sections) {
  // .shstrtab last, names at their offsets.
  std::vector<uint8_t> names(1, 0);
  std::vector<uint32_t> name_offsets;
  sections.push_back({".shstrtab", SHT_STRTAB, 0, {}});
  for (const ElfSection& s : sections) {
    name_offsets.push_back(static_cast<uint32_t>(names.size()));
    names.insert(names.end(), s.name, s.name + std::strlen(s.name) + 1);
  }
  sections.back().bytes = names;

  std::vector<uint8_t> out(64 + 56, 0); // header and one program header
  std::vector<uint64_t> offsets;
  for (const ElfSection& s : sections) {
    out.resize((out.size() + 15) & ~size_t(15));
    offsets.push_back(out.size());
    out.insert(out.end(), s.bytes.begin(), s.bytes.end());
  }
  out.resize((out.size() + 7) & ~size_t(7));
  uint64_t section_headers = out.size();
  out.resize(out.size() + 64 * (sections.size() + 1), 0);
  for (size_t i = 0; i < sections.size(); ++i) {
    size_t at = section_headers + 64 * (i + 1);
    put<uint32_t>(out, at, name_offsets[i]);
    put<uint32_t>(out, at + 4, sections[i].type);
    put<uint64_t>(out, at + 8, sections[i].flags);
    // Allocated sections sit at their file offset: one PT_LOAD maps the file at 0.
    put<uint64_t>(out, at + 16, sections[i].flags & SHF_ALLOC ? offsets[i] : 0);
    put<uint64_t>(out, at + 24, offsets[i]);
    put<uint64_t>(out, at + 32, sections[i].bytes.size());
    put<uint64_t>(out, at + 48, 1);
  }
  std::memcpy(out.data(), ElfMagic, 4);
  out[EI_CLASS] = ELFCLASS64;
  out[EI_DATA] = ELFDATA2LSB;
  out[EI_VERSION] = EV_CURRENT;
  put<uint16_t>(out, 16, ET_DYN);
  put<uint16_t>(out, 18, EM_X86_64);
  put<uint32_t>(out, 20, EV_CURRENT);
  put<uint64_t>(out, 32, 64);              // e_phoff
  put<uint64_t>(out, 40, section_headers); // e_shoff
  put<uint16_t>(out, 52, 64);
  put<uint16_t>(out, 54, 56);
  put<uint16_t>(out, 56, 1);
  put<uint16_t>(out, 58, 64);
  put<uint16_t>(out, 60, static_cast<uint16_t>(sections.size() + 1));
  put<uint16_t>(out, 62, static_cast<uint16_t>(sections.size()));
  // PT_LOAD: the whole file at address 0, so .text (file offset = address) maps.
  put<uint32_t>(out, 64, PT_LOAD);
  put<uint32_t>(out, 68, PF_R | PF_X);
  put<uint64_t>(out, 64 + 32, out.size());
  put<uint64_t>(out, 64 + 40, out.size());
  put<uint64_t>(out, 64 + 48, 0x1000);
  return out;
}

} // namespace dumpsyms::test_support
