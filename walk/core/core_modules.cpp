#include "walk/core/core_modules.h"

#include "common/limits/input_limits.h"

#include <algorithm>
#include <cstring>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFTypes.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/Path.h>
#include <map>

namespace dumpsyms {

namespace {

using Ehdr = llvm::object::ELF64LE::Ehdr;
using Phdr = llvm::object::ELF64LE::Phdr;

using limits::kMaxCoreModuleNoteBytes;
using limits::kMaxCoreModuleProgramHeaders;

// The GNU build-id of the ELF image mapped at `base`, from its PT_NOTE
// segments as the dump holds them; empty when it does not hold them.
std::vector<uint8_t> buildIdAt(const CoreFile& core, uint64_t base) {
  auto header_bytes = core.read(base, sizeof(Ehdr));
  if (!header_bytes || std::memcmp(header_bytes->data(), llvm::ELF::ElfMagic, 4) != 0)
    return {};
  Ehdr header;
  std::memcpy(&header, header_bytes->data(), sizeof header);
  if (header.e_ident[llvm::ELF::EI_CLASS] != llvm::ELF::ELFCLASS64 ||
      header.e_phentsize != sizeof(Phdr) || header.e_phnum == 0 ||
      header.e_phnum > kMaxCoreModuleProgramHeaders)
    return {};
  auto table = core.read(base + header.e_phoff, uint64_t(header.e_phnum) * sizeof(Phdr));
  if (!table)
    return {};
  std::vector<Phdr> headers(header.e_phnum);
  std::memcpy(headers.data(), table->data(), table->size());

  // Segment addresses are link-time ones: the first PT_LOAD's page is at base.
  std::optional<uint64_t> first_load;
  for (const Phdr& h : headers)
    if (h.p_type == llvm::ELF::PT_LOAD && (!first_load || h.p_vaddr < *first_load))
      first_load = h.p_vaddr;
  if (!first_load)
    return {};
  uint64_t link_base = *first_load & ~uint64_t(0xfff);
  for (const Phdr& h : headers) {
    if (h.p_type != llvm::ELF::PT_NOTE || h.p_filesz > kMaxCoreModuleNoteBytes ||
        h.p_vaddr < link_base)
      continue;
    auto notes = core.read(base + (h.p_vaddr - link_base), h.p_filesz);
    if (!notes)
      continue;
    // Each note: namesz, descsz, type, name (padded to 4), desc (padded to 4).
    size_t at = 0;
    while (at + 12 <= notes->size()) {
      uint32_t name_size = llvm::support::endian::read32le(notes->data() + at);
      uint32_t desc_size = llvm::support::endian::read32le(notes->data() + at + 4);
      uint32_t type = llvm::support::endian::read32le(notes->data() + at + 8);
      size_t name_at = at + 12;
      size_t desc_at = name_at + ((uint64_t(name_size) + 3) & ~uint64_t(3));
      size_t next = desc_at + ((uint64_t(desc_size) + 3) & ~uint64_t(3));
      if (desc_at > notes->size() || next > notes->size() || next <= at)
        break;
      if (type == llvm::ELF::NT_GNU_BUILD_ID && name_size == 4 &&
          std::memcmp(notes->data() + name_at, "GNU", 4) == 0 && desc_size > 0)
        return std::vector<uint8_t>(notes->data() + desc_at, notes->data() + desc_at + desc_size);
      at = next;
    }
  }
  return {};
}

void identify(const CoreFile& core, CoreModule& module) {
  std::vector<uint8_t> id = buildIdAt(core, module.base);
  if (id.empty())
    return;
  module.debug_id = DebugId::fromIdentifier(id);
  module.build_id = BuildId(id);
}

} // namespace

std::vector<CoreModule> findCoreModules(const CoreFile& core) {
  std::vector<CoreModule> modules;
  if (!core.mappedFiles().empty()) {
    // One module per path: based where its offset 0 is mapped, ending with
    // the last mapping of the same path that follows without another
    // module's base in between.
    std::map<std::string, std::vector<const CoreMappedFile*>> by_path;
    for (const CoreMappedFile& file : core.mappedFiles())
      by_path[file.path].push_back(&file);
    for (auto& [path, files] : by_path) {
      for (const CoreMappedFile* file : files) {
        if (file->file_offset != 0)
          continue;
        CoreModule module;
        module.path = path;
        module.name = llvm::sys::path::filename(path).str();
        module.base = file->start;
        module.end = file->end;
        modules.push_back(std::move(module));
      }
      // Later mappings of the file extend the module based below them.
      for (const CoreMappedFile* file : files) {
        CoreModule* owner = nullptr;
        for (CoreModule& module : modules)
          if (module.path == path && module.base <= file->start &&
              (!owner || module.base > owner->base))
            owner = &module;
        if (owner)
          owner->end = std::max(owner->end, file->end);
      }
    }
  } else {
    for (const CoreSegment& segment : core.segments()) {
      auto magic = core.read(segment.address, 4);
      if (!magic || std::memcmp(magic->data(), llvm::ELF::ElfMagic, 4) != 0)
        continue;
      CoreModule module;
      module.base = segment.address;
      module.end = segment.address + segment.size;
      modules.push_back(std::move(module));
    }
  }
  std::sort(modules.begin(), modules.end(),
            [](const CoreModule& a, const CoreModule& b) { return a.base < b.base; });
  // Without NT_FILE a module reaches up to the next one's header.
  if (core.mappedFiles().empty())
    for (size_t i = 0; i < modules.size(); ++i) {
      uint64_t limit = i + 1 < modules.size() ? modules[i + 1].base : UINT64_MAX;
      for (const CoreSegment& segment : core.segments())
        if (segment.address >= modules[i].base && segment.address < limit &&
            segment.address - modules[i].end < 0x200000)
          modules[i].end = std::max(modules[i].end, segment.address + segment.size);
    }
  for (CoreModule& module : modules)
    identify(core, module);
  return modules;
}

const CoreModule* moduleAt(const std::vector<CoreModule>& modules, uint64_t address) {
  auto after = std::upper_bound(modules.begin(), modules.end(), address,
                                [](uint64_t a, const CoreModule& m) { return a < m.base; });
  while (after != modules.begin()) {
    --after;
    if (address < after->end)
      return &*after;
    // Modules do not nest, but a damaged NT_FILE may make them overlap.
    if (after->end <= after->base)
      continue;
    break;
  }
  return nullptr;
}

} // namespace dumpsyms
