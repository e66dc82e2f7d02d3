// Fuzzed DWARF inside a valid ELF container, so that the fuzzer spends its
// time in DWARF rather than in the ELF header: the input's first 16 bytes
// are eight little-endian 16-bit lengths, and the bytes after them are cut
// into .debug_info, .debug_abbrev, .debug_line, .debug_str,
// .debug_str_offsets, .debug_rnglists, .debug_addr and .eh_frame in that
// order. The ELF around them (x86_64, one PT_LOAD, .text of 4 KiB) is made
// here; the dump is dump_elf's.
#include "tests/fuzz/fuzz_targets.h"

#include <cstring>
#include <llvm/BinaryFormat/ELF.h>
#include <vector>

namespace dumpsyms::fuzz {

int dumpBytes(const uint8_t* data, size_t size);

namespace {

using namespace llvm::ELF;

struct Section {
  const char* name;
  uint32_t type;
  uint64_t flags;
  std::vector<uint8_t> bytes;
};

template <typename T> void put(std::vector<uint8_t>& out, size_t at, T value) {
  std::memcpy(out.data() + at, &value, sizeof value);
}

std::vector<uint8_t> elfAround(std::vector<Section> sections) {
  // .shstrtab last, names at their offsets.
  std::vector<uint8_t> names(1, 0);
  std::vector<uint32_t> name_offsets;
  sections.push_back({".shstrtab", SHT_STRTAB, 0, {}});
  for (const Section& s : sections) {
    name_offsets.push_back(static_cast<uint32_t>(names.size()));
    names.insert(names.end(), s.name, s.name + std::strlen(s.name) + 1);
  }
  sections.back().bytes = names;

  std::vector<uint8_t> out(64 + 56, 0); // header and one program header
  std::vector<uint64_t> offsets;
  for (const Section& s : sections) {
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

} // namespace

int dwarfSections(const uint8_t* data, size_t size) {
  if (size < 16)
    return 0;
  static const char* const kNames[] = {".debug_info", ".debug_abbrev",      ".debug_line",
                                       ".debug_str",  ".debug_str_offsets", ".debug_rnglists",
                                       ".debug_addr", ".eh_frame"};
  std::vector<Section> sections;
  // .text first: 4 KiB of `ret` so that addresses the DWARF names are code.
  sections.push_back(
      {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, std::vector<uint8_t>(4096, 0xc3)});
  size_t at = 16;
  for (size_t i = 0; i < 8; ++i) {
    size_t length = data[2 * i] | size_t(data[2 * i + 1]) << 8;
    length = std::min(length, size - at);
    Section s{kNames[i], SHT_PROGBITS, i == 7 ? uint64_t(SHF_ALLOC) : 0,
              std::vector<uint8_t>(data + at, data + at + length)};
    sections.push_back(std::move(s));
    at += length;
  }
  std::vector<uint8_t> elf = elfAround(std::move(sections));
  return dumpBytes(elf.data(), elf.size());
}

} // namespace dumpsyms::fuzz
