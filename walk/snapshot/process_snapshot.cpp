#include "walk/snapshot/process_snapshot.h"

#include <algorithm>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

std::string pathFileName(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* cpuName(SnapshotCpu cpu) {
  switch (cpu) {
  case SnapshotCpu::X86:
    return "x86";
  case SnapshotCpu::Amd64:
    return "amd64";
  case SnapshotCpu::Arm:
    return "arm";
  case SnapshotCpu::Arm64:
    return "arm64";
  case SnapshotCpu::Mips:
    return "mips";
  case SnapshotCpu::Mips64:
    return "mips64";
  case SnapshotCpu::Riscv:
    return "riscv";
  case SnapshotCpu::Riscv64:
    return "riscv64";
  case SnapshotCpu::Ppc:
    return "ppc";
  case SnapshotCpu::Ppc64:
    return "ppc64";
  case SnapshotCpu::Unknown:
    break;
  }
  return "unknown";
}

unsigned wordSize(SnapshotCpu cpu) {
  switch (cpu) {
  case SnapshotCpu::X86:
  case SnapshotCpu::Arm:
  case SnapshotCpu::Mips:
  case SnapshotCpu::Riscv:
  case SnapshotCpu::Ppc:
    return 4;
  default:
    return 8;
  }
}

uint16_t elfMachine(SnapshotCpu cpu) {
  using namespace llvm::ELF;
  switch (cpu) {
  case SnapshotCpu::X86:
    return EM_386;
  case SnapshotCpu::Amd64:
    return EM_X86_64;
  case SnapshotCpu::Arm:
    return EM_ARM;
  case SnapshotCpu::Arm64:
    return EM_AARCH64;
  case SnapshotCpu::Mips:
  case SnapshotCpu::Mips64:
    return EM_MIPS;
  case SnapshotCpu::Riscv:
  case SnapshotCpu::Riscv64:
    return EM_RISCV;
  default:
    return 0;
  }
}

void SnapshotMemory::finish(std::vector<std::string>& warnings) {
  // Stable: of two regions at one address the file's first is kept.
  std::stable_sort(
      regions_.begin(), regions_.end(),
      [](const MemoryRegion& a, const MemoryRegion& b) { return a.address < b.address; });
  std::vector<MemoryRegion> kept;
  size_t overlapping = 0;
  for (const MemoryRegion& region : regions_) {
    if (region.size == 0)
      continue;
    if (!kept.empty() && region.address - kept.back().address < kept.back().size) {
      ++overlapping;
      continue;
    }
    kept.push_back(region);
  }
  if (overlapping)
    warnings.push_back(std::to_string(overlapping) + " memory range" +
                       (overlapping == 1 ? " overlaps" : "s overlap") + " another one and " +
                       (overlapping == 1 ? "was" : "were") + " left out");
  regions_ = std::move(kept);
}

const MemoryRegion* SnapshotMemory::regionAt(uint64_t address) const {
  auto after = std::upper_bound(regions_.begin(), regions_.end(), address,
                                [](uint64_t a, const MemoryRegion& r) { return a < r.address; });
  if (after == regions_.begin())
    return nullptr;
  const MemoryRegion& region = *std::prev(after);
  return address - region.address < region.size ? &region : nullptr;
}

std::optional<std::vector<uint8_t>> SnapshotMemory::read(uint64_t address, uint64_t size) const {
  const MemoryRegion* region = regionAt(address);
  if (!region)
    return std::nullopt;
  uint64_t offset = address - region->address;
  if (offset > region->bytes_held || size > region->bytes_held - offset)
    return std::nullopt;
  return std::vector<uint8_t>(region->data + offset, region->data + offset + size);
}

std::optional<uint64_t> SnapshotMemory::readWord(uint64_t address, unsigned size) const {
  const MemoryRegion* region = regionAt(address);
  if (!region || (size != 4 && size != 8))
    return std::nullopt;
  uint64_t offset = address - region->address;
  if (offset > region->bytes_held || size > region->bytes_held - offset)
    return std::nullopt;
  const uint8_t* at = region->data + offset;
  return size == 8 ? llvm::support::endian::read64le(at) : llvm::support::endian::read32le(at);
}

const SnapshotModule* ProcessSnapshot::moduleAt(uint64_t address, bool mapped) const {
  auto after = std::upper_bound(modules.begin(), modules.end(), address,
                                [](uint64_t a, const SnapshotModule& m) { return a < m.base; });
  while (after != modules.begin()) {
    --after;
    uint64_t size = mapped ? std::max(after->size, after->mapped_size) : after->size;
    if (address - after->base < size)
      return &*after;
    // Modules seldom nest, but a microdump's may (a library mapped inside
    // another's reservation on Android) and damaged files may make them
    // overlap: one below that does not cover the address does not hide one
    // further down that does. (A miss costs a look at every module below.)
  }
  return nullptr;
}

const SnapshotModule* ProcessSnapshot::unloadedModuleAt(uint64_t address) const {
  for (const SnapshotModule& module : unloaded_modules)
    if (address - module.base < module.size)
      return &module;
  return nullptr;
}

std::optional<bool> ProcessSnapshot::executableAt(uint64_t address) const {
  auto after = std::upper_bound(mappings.begin(), mappings.end(), address,
                                [](uint64_t a, const MemoryMapping& m) { return a < m.start; });
  if (after == mappings.begin())
    return std::nullopt;
  const MemoryMapping& mapping = *std::prev(after);
  if (address >= mapping.end)
    return std::nullopt;
  return mapping.executable;
}

} // namespace dumpsyms
