#include "dump/cfi/compact_unwind_reader.h"

#include <algorithm>
#include <llvm/Support/Endian.h>

namespace dumpsyms {

namespace {

constexpr uint32_t kRegularPage = 2, kCompressedPage = 3;

// Little-endian reads that say whether the bytes were there.
class Bytes {
public:
  explicit Bytes(llvm::StringRef data) : data_(data) {}
  bool u32(uint64_t offset, uint32_t& out) const {
    if (offset > data_.size() || data_.size() - offset < 4)
      return false;
    out = llvm::support::endian::read32le(data_.data() + offset);
    return true;
  }
  bool u16(uint64_t offset, uint16_t& out) const {
    if (offset > data_.size() || data_.size() - offset < 2)
      return false;
    out = llvm::support::endian::read16le(data_.data() + offset);
    return true;
  }

private:
  llvm::StringRef data_;
};

struct Start {
  uint32_t offset;
  uint32_t encoding;
};

} // namespace

std::vector<CompactUnwindEntry> readCompactUnwindEntries(llvm::StringRef section,
                                                         uint64_t image_base,
                                                         std::vector<std::string>& warnings) {
  Bytes in(section);
  uint32_t version, common_offset, common_count, index_offset, index_count, ignored;
  if (!in.u32(0, version) || !in.u32(4, common_offset) || !in.u32(8, common_count) ||
      !in.u32(12, ignored) || !in.u32(16, ignored) || !in.u32(20, index_offset) ||
      !in.u32(24, index_count)) {
    warnings.push_back("__unwind_info: shorter than its header");
    return {};
  }
  if (version != 1) {
    warnings.push_back("__unwind_info: version " + std::to_string(version) + ", not 1: not read");
    return {};
  }
  // Counts are bounded by the bytes they claim.
  if (common_count > section.size() / 4 || index_count > section.size() / 12) {
    warnings.push_back("__unwind_info: its counts claim more than the section holds: not read");
    return {};
  }
  auto common = [&](uint32_t index, uint32_t& encoding) {
    return index < common_count && in.u32(uint64_t(common_offset) + 4ull * index, encoding);
  };
  std::vector<Start> starts;
  uint32_t end_marker = 0;
  size_t bad = 0;
  for (uint32_t i = 0; i < index_count; ++i) {
    uint64_t entry = uint64_t(index_offset) + 12ull * i;
    uint32_t function_offset, page_offset;
    if (!in.u32(entry, function_offset) || !in.u32(entry + 4, page_offset)) {
      ++bad;
      break;
    }
    end_marker = function_offset; // the last entry is the end marker
    if (i + 1 == index_count || page_offset == 0)
      continue;
    uint32_t kind;
    uint16_t entries_offset, entry_count;
    if (!in.u32(page_offset, kind) || !in.u16(uint64_t(page_offset) + 4, entries_offset) ||
        !in.u16(uint64_t(page_offset) + 6, entry_count)) {
      ++bad;
      continue;
    }
    uint64_t first = uint64_t(page_offset) + entries_offset;
    if (kind == kRegularPage) {
      for (uint16_t e = 0; e < entry_count; ++e) {
        Start start;
        if (!in.u32(first + 8ull * e, start.offset) ||
            !in.u32(first + 8ull * e + 4, start.encoding)) {
          ++bad;
          break;
        }
        starts.push_back(start);
      }
    } else if (kind == kCompressedPage) {
      uint16_t encodings_offset, encoding_count;
      if (!in.u16(uint64_t(page_offset) + 8, encodings_offset) ||
          !in.u16(uint64_t(page_offset) + 10, encoding_count)) {
        ++bad;
        continue;
      }
      for (uint16_t e = 0; e < entry_count; ++e) {
        uint32_t packed;
        if (!in.u32(first + 4ull * e, packed)) {
          ++bad;
          break;
        }
        uint32_t index = packed >> 24;
        Start start{function_offset + (packed & 0xffffff), 0};
        bool found = common(index, start.encoding);
        if (!found && index >= common_count && index - common_count < encoding_count)
          found = in.u32(uint64_t(page_offset) + encodings_offset + 4ull * (index - common_count),
                         start.encoding);
        if (!found) {
          ++bad;
          continue;
        }
        starts.push_back(start);
      }
    } else {
      ++bad;
    }
  }
  if (bad)
    warnings.push_back("__unwind_info: " + std::to_string(bad) +
                       " entries or pages lie outside the section or are of no known kind: "
                       "left out");
  std::stable_sort(starts.begin(), starts.end(),
                   [](const Start& a, const Start& b) { return a.offset < b.offset; });
  std::vector<CompactUnwindEntry> out;
  for (size_t i = 0; i < starts.size(); ++i) {
    uint32_t end = i + 1 < starts.size() ? starts[i + 1].offset : end_marker;
    if (end <= starts[i].offset)
      continue;
    out.push_back({image_base + starts[i].offset, image_base + end, starts[i].encoding});
  }
  return out;
}

} // namespace dumpsyms
