// The running kernel's vDSO, copied out of this process's memory (where the
// kernel maps it at getauxval(AT_SYSINFO_EHDR)) as a complete ELF image.
#pragma once

#include "dump/object/elf_image.h"

#include <llvm/Support/Error.h>
#include <memory>

namespace dumpsyms {

llvm::Expected<std::unique_ptr<ElfImage>> readRunningVdso();

// The name crash reporters give the vDSO mapping in a minidump (Breakpad's
// Linux client uses it on every CPU), and so the MODULE name of its symbols.
inline constexpr const char* kVdsoModuleName = "linux-gate.so";

} // namespace dumpsyms
