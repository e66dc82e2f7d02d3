#include "dump/flows/pe_unwind_rules.h"

#include "common/errors/diagnostics.h"
#include "dump/cfi/arm64_unwind_reader.h"
#include "dump/cfi/x64_unwind_reader.h"
#include "dump/pe/pe_image.h"

#include <llvm/BinaryFormat/COFF.h>

namespace dumpsyms {

bool peHasUnwindRules(const PeImage& pe) {
  return pe.machine() == llvm::COFF::IMAGE_FILE_MACHINE_AMD64 ||
         pe.machine() == llvm::COFF::IMAGE_FILE_MACHINE_ARM64;
}

std::vector<CfiRule> peLeafFunctionRules(const PeImage& pe) {
  if (pe.machine() != llvm::COFF::IMAGE_FILE_MACHINE_ARM64)
    return {};
  return {{".cfa", "sp 0 +"}, {".ra", "x30"}};
}

void addPeUnwindRules(const PeImage& pe, ModuleBuilder& builder, Diagnostics& diagnostics,
                      uint64_t bias) {
  if (!peHasUnwindRules(pe))
    return;
  ImageBytes bytes = [&pe](uint32_t rva, uint32_t size) { return pe.bytesAt(rva, size); };
  PeUnwindResult unwind = pe.machine() == llvm::COFF::IMAGE_FILE_MACHINE_AMD64
                              ? readX64Unwind(pe.exceptionDirectory(), bytes)
                              : readArm64Unwind(pe.exceptionDirectory(), bytes);
  for (std::string& problem : unwind.problems)
    diagnostics.warn(pe.path() + ": " + problem);
  for (CfiFrame& frame : unwind.frames) {
    frame.range.start += bias;
    frame.range.end += bias;
    for (CfiChange& change : frame.changes)
      change.address += bias;
    builder.addCfiFrame(std::move(frame), CfiSource::ExceptionDirectory);
  }
}

} // namespace dumpsyms
