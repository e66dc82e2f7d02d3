#include "dump/object/cpu_name.h"

#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {

std::optional<std::string> cpuName(uint16_t machine) {
  using namespace llvm::ELF;
  switch (machine) {
  case EM_386:
    return "x86";
  case EM_X86_64:
    return "x86_64";
  case EM_ARM:
    return "arm";
  case EM_AARCH64:
    return "arm64";
  case EM_MIPS:
    return "mips"; // 64-bit MIPS too, as Breakpad writes it
  case EM_PPC:
    return "ppc";
  case EM_PPC64:
    return "ppc64";
  case EM_S390:
    return "s390"; // s390x too
  case EM_SPARC:
    return "sparc";
  case EM_SPARCV9:
    return "sparcv9";
  case EM_RISCV:
    return "riscv"; // RV64 too
  case 167:         // EM_NDS32
    return "nds32";
  default:
    return std::nullopt;
  }
}

} // namespace dumpsyms
