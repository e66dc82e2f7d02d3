// Mach-O input: the bytes as a file, dumped whole (-d) slice by slice when
// they are a universal file, else as they are; and the same bytes read as a
// compact unwind table (__unwind_info) whose entries become x86_64 and
// arm64 STACK CFI, the bytes also standing for the functions' code (the
// indirect stack sizes and the prologues are read from it). Seeds: the
// fixtures test_macho builds (thin, universal, dylib) and their
// __unwind_info sections. The file is also read as `symstore serve` reads
// an uploaded kept file (keptFileIdentity: each slice's UUID).
#include "dump/cfi/compact_unwind_rules.h"
#include "dump/macho/macho_image.h"
#include "tests/fuzz/fuzz_targets.h"

#include <llvm/BinaryFormat/MachO.h>

namespace dumpsyms::fuzz {

const std::string& scratchPath();
void keptFileIdentityOfScratch();

int macho(const uint8_t* data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  for (const CompactUnwindEntry& entry : readCompactUnwindEntries(bytes, 0x1000, warnings)) {
    for (uint32_t cpu : {llvm::MachO::CPU_TYPE_X86_64, llvm::MachO::CPU_TYPE_ARM64}) {
      std::string problem;
      uint64_t at = entry.start - 0x1000;
      llvm::StringRef code = at < bytes.size() ? bytes.substr(at, entry.end - entry.start) : "";
      (void)compactUnwindFrame(entry, cpu, code, problem);
    }
  }
  dumpBytes(data, size, "");
  keptFileIdentityOfScratch();
  auto slices = MachOImage::slices(scratchPath());
  if (!slices) {
    llvm::consumeError(slices.takeError());
    return 0;
  }
  if (slices->size() > 1)
    for (const MachOSlice& slice : *slices)
      dumpBytes(data, size, slice.arch);
  return 0;
}

} // namespace dumpsyms::fuzz
