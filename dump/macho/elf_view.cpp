#include "dump/macho/elf_view.h"

#include "dump/object/elf_section_view.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MachO.h>

namespace dumpsyms {

using namespace llvm;

namespace {

std::optional<uint16_t> elfMachine(uint32_t cpu_type) {
  switch (cpu_type) {
  case MachO::CPU_TYPE_X86_64:
    return ELF::EM_X86_64;
  case MachO::CPU_TYPE_I386:
    return ELF::EM_386;
  case MachO::CPU_TYPE_ARM64:
    return ELF::EM_AARCH64;
  case MachO::CPU_TYPE_ARM:
    return ELF::EM_ARM;
  default:
    return std::nullopt;
  }
}

} // namespace

std::string elfDwarfSectionName(StringRef macho_name) {
  if (!macho_name.starts_with("__debug_"))
    return "";
  if (macho_name == "__debug_str_offs")
    return ".debug_str_offsets";
  return "." + macho_name.drop_front(2).str();
}

Expected<std::unique_ptr<ElfImage>> machOElfView(const MachOImage& image) {
  std::string name = image.path() + " (" + image.arch() + ")";
  std::optional<uint16_t> machine = elfMachine(image.cpuType());
  if (!machine)
    return fileError(name, "its DWARF is not read: no reader for " + image.arch());
  std::vector<ViewSection> sections;
  for (const MachOSection& section : image.sections()) {
    std::string elf_name;
    uint32_t flags = 0;
    if (section.segment == "__DWARF")
      elf_name = elfDwarfSectionName(section.name);
    else if (section.segment == "__TEXT" && section.name == "__eh_frame") {
      elf_name = ".eh_frame";
      flags = ELF::SHF_ALLOC;
    }
    if (elf_name.empty() || !image.sectionBytes(section))
      continue;
    sections.push_back(
        {elf_name, section.address, image.sliceOffset() + section.offset, section.size, flags});
  }
  return elfSectionView(image.path(), name, {*machine, image.is64Bit()}, sections);
}

} // namespace dumpsyms
