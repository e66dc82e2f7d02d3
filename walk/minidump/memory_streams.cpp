// MemoryList and Memory64List.
#include "common/limits/input_limits.h"
#include "walk/minidump/stream_reader.h"

#include <llvm/Support/Endian.h>

namespace dumpsyms::minidump_streams {

void StreamReader::readMemory() {
  for (const MinidumpStream* stream : directory_.all(kMemoryList)) {
    uint64_t first = 0;
    uint64_t count = listEntries(*stream, sizeof(md::MemoryDescriptor),
                                 limits::kMaxMinidumpMemoryRanges, "memory list", first);
    size_t outside = 0;
    for (uint64_t i = 0; i < count; ++i) {
      md::MemoryDescriptor range;
      std::memcpy(static_cast<void*>(&range),
                  stream->bytes.data() + first + i * sizeof(md::MemoryDescriptor), sizeof range);
      uint64_t start = range.StartOfMemoryRange, size = range.Memory.DataSize;
      auto data = bytes_.at(range.Memory.RVA, size);
      if (!data || size == 0 || start + size < start) {
        outside += size != 0;
        continue;
      }
      out_.memory.add({start, size, size, reinterpret_cast<const uint8_t*>(data->data())});
    }
    if (outside)
      warn(plural(outside, "memory range", "memory ranges") +
           " of the MemoryList run past the file or wrap around; left out");
  }
  if (const MinidumpStream* stream = directory_.first(kMemory64List)) {
    if (stream->bytes.size() < 16) {
      warn("the Memory64List stream is too short for its header; left out");
    } else {
      uint64_t count = read64le(stream->bytes.data());
      uint64_t rva = read64le(stream->bytes.data() + 8);
      uint64_t held = (stream->bytes.size() - 16) / 16;
      if (count > held) {
        warn("the Memory64List claims " + std::to_string(count) + " ranges but holds " +
             std::to_string(held) + "; those read");
        count = held;
      }
      if (count > limits::kMaxMinidumpMemoryRanges) {
        warn(limits::overLimit("the Memory64List's range count", limits::kMaxMinidumpMemoryRanges,
                               "ranges"));
        count = limits::kMaxMinidumpMemoryRanges;
      }
      bool short_file = false;
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t start = read64le(stream->bytes.data() + 16 + i * 16);
        uint64_t size = read64le(stream->bytes.data() + 24 + i * 16);
        if (start + size < start || rva > bytes_.size()) {
          short_file = true;
          break;
        }
        uint64_t held_bytes = std::min<uint64_t>(size, bytes_.size() - rva);
        short_file |= held_bytes < size;
        if (size > 0)
          out_.memory.add({start, size, held_bytes,
                           reinterpret_cast<const uint8_t*>(bytes_.at(rva, held_bytes)->data())});
        if (size > bytes_.size() - rva) {
          short_file = true;
          break;
        }
        rva += size;
      }
      if (short_file)
        warn("the Memory64List's data runs past the end of the file: the rest left out");
    }
  }
  out_.memory.finish(out_.warnings);
}

} // namespace dumpsyms::minidump_streams
