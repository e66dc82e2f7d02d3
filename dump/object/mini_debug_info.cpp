#include "dump/object/mini_debug_info.h"

#include "common/limits/input_limits.h"

#include <lzma.h>

namespace dumpsyms {

std::unique_ptr<ElfImage> readMiniDebugInfo(const ElfImage& image,
                                            std::vector<std::string>& warnings) {
  const ElfSection* section = image.findSection(".gnu_debugdata");
  if (!section || !section->hasBytes())
    return nullptr;
  auto bytes = image.sectionBytes(*section);
  if (!bytes || !*bytes) {
    if (!bytes)
      warnings.push_back(llvm::toString(bytes.takeError()));
    return nullptr;
  }
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, limits::kMaxMiniDebugInfoMemory, 0) != LZMA_OK) {
    warnings.push_back(image.path() + ": .gnu_debugdata: cannot start the xz decoder");
    return nullptr;
  }
  std::string out;
  stream.next_in = reinterpret_cast<const uint8_t*>((*bytes)->data());
  stream.avail_in = (*bytes)->size();
  lzma_ret result = LZMA_OK;
  char chunk[1 << 16];
  bool too_large = false;
  while (result == LZMA_OK) {
    stream.next_out = reinterpret_cast<uint8_t*>(chunk);
    stream.avail_out = sizeof chunk;
    result = lzma_code(&stream, LZMA_FINISH);
    out.append(chunk, sizeof chunk - stream.avail_out);
    too_large = out.size() > limits::kMaxMiniDebugInfoOutput;
    if (too_large)
      result = LZMA_MEMLIMIT_ERROR;
  }
  lzma_end(&stream);
  if (too_large || result == LZMA_MEMLIMIT_ERROR) {
    warnings.push_back(image.path() + ": .gnu_debugdata: " +
                       limits::overLimit("what it inflates to (or the decoder's memory)",
                                         limits::kMaxMiniDebugInfoOutput, "bytes") +
                       ": not read");
    return nullptr;
  }
  if (result != LZMA_STREAM_END) {
    warnings.push_back(image.path() + ": .gnu_debugdata is not a valid xz stream (error " +
                       std::to_string(result) + ")");
    return nullptr;
  }
  auto embedded = ElfImage::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(out),
                                       image.path() + "[.gnu_debugdata]");
  if (!embedded) {
    warnings.push_back(llvm::toString(embedded.takeError()));
    return nullptr;
  }
  return std::move(*embedded);
}

} // namespace dumpsyms
