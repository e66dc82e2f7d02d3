#include "dump/pe/pe_dwarf_view.h"

#include "dump/object/elf_section_view.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/COFF.h>
#include <llvm/BinaryFormat/ELF.h>
#include <optional>

namespace dumpsyms {

using namespace llvm;

namespace {

std::optional<uint16_t> elfMachine(uint16_t machine) {
  switch (machine) {
  case COFF::IMAGE_FILE_MACHINE_AMD64:
    return ELF::EM_X86_64;
  case COFF::IMAGE_FILE_MACHINE_I386:
    return ELF::EM_386;
  case COFF::IMAGE_FILE_MACHINE_ARM64:
    return ELF::EM_AARCH64;
  case COFF::IMAGE_FILE_MACHINE_ARMNT:
    return ELF::EM_ARM;
  default:
    return std::nullopt;
  }
}

// The name the readers know a section by, or "" for one they do not take.
// (lld writes the names of sections other than .debug_* in the 8 bytes of
// the header, without the string table: .eh_frame becomes ".eh_fram".)
std::string viewedName(StringRef name) {
  if (name == ".eh_fram")
    return ".eh_frame";
  if (name.starts_with(".debug_") || name == ".eh_frame" || name == ".gnu_debuglink")
    return name.str();
  return "";
}

} // namespace

bool peHasDwarf(const PeImage& pe) {
  const PeSection* info = pe.findSection(".debug_info");
  return info && info->raw_size && info->fileBytes();
}

Expected<std::unique_ptr<ElfImage>> peDwarfView(const PeImage& pe) {
  std::optional<uint16_t> machine = elfMachine(pe.machine());
  if (!machine)
    return fileError(
        pe.path(), fmt::format("its DWARF is not read: no reader for machine {:#x}", pe.machine()));
  std::vector<ViewSection> sections;
  for (const PeSection& section : pe.sections()) {
    std::string name = viewedName(section.name);
    if (name.empty() || !section.raw_size || !section.fileBytes())
      continue;
    uint32_t flags = name == ".eh_frame" ? uint32_t(ELF::SHF_ALLOC) : 0;
    sections.push_back(
        {name, pe.imageBase() + section.rva, section.raw_offset, section.fileBytes(), flags});
  }
  return elfSectionView(pe.path(), pe.path(), {*machine, pe.is64()}, sections);
}

} // namespace dumpsyms
