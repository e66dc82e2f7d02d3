#include "dump/cfi/unwind_info_reader.h"

#include "dump/cfi/arm_exidx_reader.h"

namespace dumpsyms {

using namespace llvm;

std::vector<UnwindFrame> readUnwindInfo(const std::vector<const ElfImage*>& images, CfiStats& stats,
                                        Diagnostics& diagnostics) {
  std::vector<UnwindFrame> frames;
  const ElfImage& binary = *images.front();
  std::optional<RegisterNames> registers =
      RegisterNames::forMachine(binary.machine(), binary.is64Bit());
  if (!registers) {
    diagnostics.note("no STACK CFI: Breakpad's stack walker takes no CFI for this CPU");
    return frames;
  }
  for (auto [name, source] : {std::pair{".eh_frame", CfiSource::EhFrame},
                              std::pair{".debug_frame", CfiSource::DebugFrame}}) {
    for (const ElfImage* image : images) {
      const ElfSection* section = image->findSection(name);
      if (!section || !section->hasBytes())
        continue;
      auto bytes = image->sectionBytes(*section);
      if (!bytes) {
        diagnostics.warn(toString(bytes.takeError()));
        break;
      }
      CfiSectionInput input;
      input.bytes = **bytes;
      input.address = section->address;
      input.is_eh_frame = source == CfiSource::EhFrame;
      input.machine = image->machine();
      input.is_64_bit = image->is64Bit();
      input.little_endian = image->isLittleEndian();
      input.origin = image->path() + ": " + name;
      for (CfiFrame& frame : readDwarfCfi(input, *registers, stats, diagnostics))
        frames.push_back({std::move(frame), source});
      break;
    }
  }
  // ARM's own exception tables, for what no DWARF CFI covers (the builder
  // gives DWARF's frames precedence).
  for (CfiFrame& frame : readArmExidx(binary, stats, diagnostics))
    frames.push_back({std::move(frame), CfiSource::ArmExidx});
  return frames;
}

} // namespace dumpsyms
