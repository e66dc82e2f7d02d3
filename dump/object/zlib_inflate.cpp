#include "dump/object/zlib_inflate.h"

#include <algorithm>
#include <isa-l/igzip_lib.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/Compression.h>
#include <memory>
#include <string>

namespace dumpsyms {

namespace {

// Input read between two progress calls.
constexpr size_t kChunk = size_t(4) << 20;
// ISA-L counts in 32-bit units.
constexpr size_t kMaxStep = size_t(1) << 30;

} // namespace

bool isalInflateZlib(llvm::StringRef input, llvm::MutableArrayRef<char> out,
                     const InflateProgress& progress) {
  // About 70 KiB (two windows of history among them): off the stack.
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_ZLIB;
  size_t in = 0, out_given = 0;
  while (state->block_state != ISAL_BLOCK_FINISH) {
    if (state->avail_in == 0) {
      if (in == input.size())
        break;
      size_t step = std::min(kChunk, input.size() - in);
      state->next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(input.data() + in));
      state->avail_in = static_cast<uint32_t>(step);
      in += step;
    }
    if (state->avail_out == 0) {
      if (out_given == out.size())
        break;
      size_t step = std::min(kMaxStep, out.size() - out_given);
      state->next_out = reinterpret_cast<uint8_t*>(out.data() + out_given);
      state->avail_out = static_cast<uint32_t>(step);
      out_given += step;
    }
    uint32_t in_before = state->avail_in, out_before = state->avail_out;
    if (isal_inflate(state.get()) != ISAL_DECOMP_OK)
      return false;
    // A decoder that took nothing and gave nothing with room on both sides
    // would be called again forever.
    if (state->block_state != ISAL_BLOCK_FINISH && state->avail_in == in_before &&
        state->avail_out == out_before && in_before != 0 && out_before != 0)
      return false;
    // total_out is 32 bits: sections past 4 GiB are counted here.
    progress(in - state->avail_in, out_given - state->avail_out);
  }
  return state->block_state == ISAL_BLOCK_FINISH && state->avail_in == 0 && in == input.size() &&
         out_given - state->avail_out == out.size();
}

llvm::Error inflateZlib(llvm::StringRef input, llvm::MutableArrayRef<char> out) {
  if (isalInflateZlib(input, out, [](uint64_t, uint64_t) {}))
    return llvm::Error::success();
  size_t size = out.size();
  if (llvm::Error error = llvm::compression::zlib::decompress(
          llvm::arrayRefFromStringRef(input), reinterpret_cast<uint8_t*>(out.data()), size))
    return error;
  if (size != out.size())
    return llvm::createStringError("the stream inflates to " + std::to_string(size) +
                                   " bytes, not " + std::to_string(out.size()));
  return llvm::Error::success();
}

} // namespace dumpsyms
