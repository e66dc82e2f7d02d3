// Fuzzed DWARF inside a valid ELF container, so that the fuzzer spends its
// time in DWARF rather than in the ELF header: the input's first 16 bytes
// are eight little-endian 16-bit lengths, and the bytes after them are cut
// into .debug_info, .debug_abbrev, .debug_line, .debug_str,
// .debug_str_offsets, .debug_rnglists, .debug_addr and .eh_frame in that
// order. The ELF around them (x86_64, one PT_LOAD, .text of 4 KiB) is
// tests/support/elf_builder's; the dump is dump_elf's.
#include "tests/fuzz/fuzz_targets.h"
#include "tests/support/elf_builder.h"

#include <llvm/BinaryFormat/ELF.h>
#include <vector>

namespace dumpsyms::fuzz {



int dwarfSections(const uint8_t* data, size_t size) {
  if (size < 16)
    return 0;
  static const char* const kNames[] = {".debug_info", ".debug_abbrev",      ".debug_line",
                                       ".debug_str",  ".debug_str_offsets", ".debug_rnglists",
                                       ".debug_addr", ".eh_frame"};
  using test_support::ElfSection;
  using namespace llvm::ELF;
  std::vector<ElfSection> sections;
  // .text first: 4 KiB of `ret` so that addresses the DWARF names are code.
  sections.push_back(
      {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, std::vector<uint8_t>(4096, 0xc3)});
  size_t at = 16;
  for (size_t i = 0; i < 8; ++i) {
    size_t length = data[2 * i] | size_t(data[2 * i + 1]) << 8;
    length = std::min(length, size - at);
    ElfSection s{kNames[i], SHT_PROGBITS, i == 7 ? uint64_t(SHF_ALLOC) : 0,
                 std::vector<uint8_t>(data + at, data + at + length)};
    sections.push_back(std::move(s));
    at += length;
  }
  std::vector<uint8_t> elf = test_support::elfAround(std::move(sections));
  return dumpBytes(elf.data(), elf.size(), "");
}

} // namespace dumpsyms::fuzz
