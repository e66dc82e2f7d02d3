#include "walk/minidump/linux_maps.h"

#include "common/limits/input_limits.h"
#include "walk/minidump/minidump_bytes.h"

#include <algorithm>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

namespace {

void byStart(std::vector<MemoryMapping>& mappings) {
  std::stable_sort(
      mappings.begin(), mappings.end(),
      [](const MemoryMapping& a, const MemoryMapping& b) { return a.start < b.start; });
}

} // namespace

std::vector<MemoryMapping> parseLinuxMaps(llvm::StringRef text) {
  // start-end perms offset dev inode [path]
  std::vector<MemoryMapping> mappings;
  while (!text.empty()) {
    llvm::StringRef line;
    std::tie(line, text) = text.split('\n');
    llvm::StringRef range, perms, offset, device, inode;
    std::tie(range, line) = line.ltrim().split(' ');
    std::tie(perms, line) = line.ltrim().split(' ');
    std::tie(offset, line) = line.ltrim().split(' ');
    std::tie(device, line) = line.ltrim().split(' ');
    std::tie(inode, line) = line.ltrim().split(' ');
    auto [start_text, end_text] = range.split('-');
    MemoryMapping mapping;
    if (start_text.getAsInteger(16, mapping.start) || end_text.getAsInteger(16, mapping.end) ||
        mapping.end <= mapping.start || perms.size() < 4 ||
        offset.getAsInteger(16, mapping.file_offset))
      continue;
    mapping.executable = perms[2] == 'x';
    mapping.path = line.trim().str();
    mappings.push_back(std::move(mapping));
  }
  byStart(mappings);
  return mappings;
}

std::vector<MemoryMapping> memoryInfoMappings(llvm::StringRef stream,
                                              std::vector<std::string>& warnings) {
  std::vector<MemoryMapping> mappings;
  if (stream.size() < 16) {
    warnings.push_back("the MemoryInfoList stream is too short for its header; left out");
    return mappings;
  }
  uint32_t header = read32le(stream.data());
  uint32_t entry = read32le(stream.data() + 4);
  uint64_t count = read64le(stream.data() + 8);
  if (header < 16 || entry < 48 || header > stream.size()) {
    warnings.push_back("the MemoryInfoList header is damaged; left out");
    return mappings;
  }
  count = std::min({count, (stream.size() - header) / entry, limits::kMaxMinidumpMemoryRanges});
  constexpr uint32_t kCommitted = 0x1000;
  constexpr uint32_t kExecutable = 0x10 | 0x20 | 0x40 | 0x80; // PAGE_EXECUTE*
  for (uint64_t i = 0; i < count; ++i) {
    const char* at = stream.data() + header + i * entry;
    MemoryMapping mapping;
    mapping.start = read64le(at);
    uint64_t size = read64le(at + 24);
    uint32_t state = read32le(at + 32), protect = read32le(at + 36);
    if (state != kCommitted || size == 0 || mapping.start + size < mapping.start)
      continue;
    mapping.end = mapping.start + size;
    mapping.executable = protect & kExecutable;
    mappings.push_back(std::move(mapping));
  }
  byStart(mappings);
  return mappings;
}

} // namespace dumpsyms
