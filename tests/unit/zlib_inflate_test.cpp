// ISA-L's inflation of zlib streams (dump/object/zlib_inflate) against zlib's
// own: the same bytes for what both accept, a refusal for every damaged
// stream, and zlib behind ISA-L for what only zlib takes.
#include "dump/object/compressed_section.h"
#include "dump/object/zlib_inflate.h"

#include <cstring>
#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>
#include <random>
#include <string>
#include <vector>
#include <zlib.h>

namespace dumpsyms {
namespace {

// DWARF-like input: repeated words with some noise, so that deflate finds
// both matches and literals, over several blocks.
std::string sampleBytes(size_t size, unsigned seed) {
  std::mt19937 random(seed);
  const char* words[] = {"DW_TAG_subprogram", "std::vector<int>",          "\x01\x02\x03",
                         "operator()",        "/usr/include/c++/12/bits/", "\0\0\0\0"};
  std::string out;
  while (out.size() < size) {
    if (random() % 4 == 0)
      out.push_back(static_cast<char>(random()));
    else
      out.append(words[random() % 6]);
  }
  out.resize(size);
  return out;
}

std::string deflateWith(const std::string& data, int level, const std::string& dictionary = "") {
  z_stream stream{};
  EXPECT_EQ(deflateInit(&stream, level), Z_OK);
  if (!dictionary.empty())
    deflateSetDictionary(&stream, reinterpret_cast<const Bytef*>(dictionary.data()),
                         static_cast<uInt>(dictionary.size()));
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(ZlibInflate, IsalWritesWhatWasDeflatedAtEveryLevel) {
  for (int level : {0, 1, 6, 9}) {
    std::string data = sampleBytes(3 << 20, level);
    std::string stream = deflateWith(data, level);
    std::string out(data.size(), '\x55');
    uint64_t last_consumed = 0, last_produced = 0;
    bool monotonic = true;
    EXPECT_TRUE(isalInflateZlib(stream, {out.data(), out.size()},
                                [&](uint64_t consumed, uint64_t produced) {
                                  monotonic &=
                                      consumed >= last_consumed && produced >= last_produced;
                                  last_consumed = consumed;
                                  last_produced = produced;
                                }))
        << "level " << level;
    EXPECT_TRUE(out == data) << "level " << level;
    EXPECT_TRUE(monotonic);
    EXPECT_EQ(last_consumed, stream.size());
    EXPECT_EQ(last_produced, data.size());
  }
}

TEST(ZlibInflate, DamagedStreamsAreRefusedNotMisread) {
  std::string data = sampleBytes(200000, 7);
  std::string stream = deflateWith(data, 6);
  std::string out(data.size(), '\0');
  auto refuses = [&](const std::string& input, size_t out_size) {
    std::string buffer(out_size, '\0');
    return !isalInflateZlib(input, {buffer.data(), buffer.size()}, [](uint64_t, uint64_t) {});
  };
  EXPECT_TRUE(refuses(stream.substr(0, stream.size() / 2), data.size())); // truncated
  EXPECT_TRUE(refuses(stream.substr(0, stream.size() - 1), data.size())); // checksum cut
  std::string bad_checksum = stream;
  bad_checksum.back() ^= 1;
  EXPECT_TRUE(refuses(bad_checksum, data.size()));
  EXPECT_TRUE(refuses(stream, data.size() - 1));     // inflates to more than said
  EXPECT_TRUE(refuses(stream, data.size() + 1));     // to less
  EXPECT_TRUE(refuses(stream + "xyz", data.size())); // bytes after the stream
  std::string bad_header = stream;
  bad_header[0] = 0x79; // not a deflate method and window
  EXPECT_TRUE(refuses(bad_header, data.size()));
  EXPECT_TRUE(refuses("", data.size()));
  // The whole-buffer form says what zlib says.
  llvm::Error error = inflateZlib(bad_checksum, {out.data(), out.size()});
  ASSERT_TRUE(bool(error));
  EXPECT_FALSE(llvm::toString(std::move(error)).empty());
}

TEST(ZlibInflate, ZlibTakesWhatIsalRefuses) {
  // A preset dictionary: ISA-L's zlib mode asks for it, zlib's decoder
  // refuses it too (no dictionary is given): both fail, with zlib's error.
  std::string data = sampleBytes(50000, 3);
  std::string stream = deflateWith(data, 6, "std::vector<int>");
  std::string out(data.size(), '\0');
  EXPECT_FALSE(isalInflateZlib(stream, {out.data(), out.size()}, [](uint64_t, uint64_t) {}));
  llvm::Error error = inflateZlib(stream, {out.data(), out.size()});
  ASSERT_TRUE(bool(error));
  llvm::consumeError(std::move(error));
  // A stream ISA-L refuses for bytes after it is still inflated by zlib,
  // as LLVM's decompressor always did.
  std::string plain = deflateWith(data, 6);
  std::string trailing = plain + std::string(64, 'x');
  EXPECT_FALSE(inflateZlib(trailing, {out.data(), out.size()}));
  EXPECT_TRUE(out == data);
}

TEST(ZlibInflate, CompressedSectionsOfBothByteOrders) {
  std::string data = sampleBytes(100000, 11);
  std::string stream = deflateWith(data, 6);
  for (bool little_endian : {true, false}) {
    llvm::ELF::Elf64_Chdr header{};
    uint32_t type = llvm::ELF::ELFCOMPRESS_ZLIB;
    uint64_t size = data.size();
    if (!little_endian) {
      type = __builtin_bswap32(type);
      size = __builtin_bswap64(size);
    }
    header.ch_type = type;
    header.ch_size = size;
    std::string section(reinterpret_cast<const char*>(&header), sizeof header);
    section += stream;
    std::string out(data.size(), '\0');
    uint64_t consumed = 0;
    EXPECT_TRUE(inflateInChunks(section, /*is_64_bit=*/true, little_endian,
                                {out.data(), out.size()},
                                [&](uint64_t c, uint64_t) { consumed = c; }));
    EXPECT_TRUE(out == data);
    EXPECT_EQ(consumed, section.size()); // counts the header too
  }
}

} // namespace
} // namespace dumpsyms
