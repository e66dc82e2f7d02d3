#include "dump/object/vdso.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <sys/auxv.h>

namespace dumpsyms {

llvm::Expected<std::unique_ptr<ElfImage>> readRunningVdso() {
  const char* name = "[vdso]";
  uintptr_t start = getauxval(AT_SYSINFO_EHDR);
  if (start == 0)
    return fileError(name, "the kernel maps no vDSO into this process");
  // Its extent is the [vdso] mapping in /proc/self/maps.
  uintptr_t end = 0;
  if (FILE* maps = std::fopen("/proc/self/maps", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
      uintptr_t low = 0, high = 0;
      if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &low, &high) == 2 && low == start &&
          std::strstr(line, "[vdso]"))
        end = high;
    }
    std::fclose(maps);
  }
  if (end <= start)
    return fileError(name, "cannot find the vDSO mapping in /proc/self/maps");
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(start), end - start), name);
  return ElfImage::fromBuffer(std::move(buffer), name);
}

} // namespace dumpsyms
