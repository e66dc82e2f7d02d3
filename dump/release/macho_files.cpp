#include "dump/release/macho_files.h"

#include "dump/flows/macho_flow.h"

#include <llvm/BinaryFormat/MachO.h>

namespace dumpsyms {

std::optional<llvm::Expected<std::vector<MachOSliceFile>>>
examineMachOFile(const std::string& path) {
  using Result = llvm::Expected<std::vector<MachOSliceFile>>;
  if (!MachOImage::isMachO(path))
    return std::nullopt;
  auto slices = MachOImage::slices(path);
  if (!slices)
    return Result(slices.takeError());
  std::vector<MachOSliceFile> out;
  for (const MachOSlice& slice : *slices) {
    auto image = MachOImage::open(path, slice.arch);
    if (!image)
      return Result(image.takeError());
    // Object files and the like are no modules.
    uint32_t type = (*image)->fileType();
    if (type != llvm::MachO::MH_EXECUTE && type != llvm::MachO::MH_DYLIB &&
        type != llvm::MachO::MH_BUNDLE && type != llvm::MachO::MH_DSYM)
      continue;
    MachOSliceFile file;
    file.arch = slice.arch;
    file.universal = slices->size() > 1;
    file.is_dsym = type == llvm::MachO::MH_DSYM;
    file.has_dwarf = (*image)->hasDwarf();
    for (const MachOSection& section : (*image)->sections())
      if (section.segment == "__DWARF" && section.hasBytes())
        file.dwarf_bytes += section.size;
    auto identity = machOIdentity(**image, Options{});
    if (!identity)
      return Result(identity.takeError());
    file.identity = std::move(*identity);
    out.push_back(std::move(file));
  }
  if (out.empty())
    return std::nullopt;
  return Result(std::move(out));
}

} // namespace dumpsyms
