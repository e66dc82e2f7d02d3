// The worked examples of the format description (section 5.4).
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "dump/object/identifiers.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(Identifiers, Sha1BuildId) {
  std::vector<uint8_t> id = {0xf1, 0x7a, 0x52, 0xc0, 0x9e, 0x3b, 0x44, 0xd8, 0xa6, 0x0c,
                             0x71, 0x2e, 0x5b, 0x93, 0xf4, 0x08, 0xc2, 0x1d, 0x6e, 0xa7};
  EXPECT_EQ(DebugId::fromIdentifier(id).str(), "C0527AF13B9ED844A60C712E5B93F4080");
  EXPECT_EQ(CodeId::fromBytes(id).str(), "F17A52C09E3B44D8A60C712E5B93F408C21D6EA7");
}

TEST(Identifiers, ShortBuildIdIsPadded) {
  std::vector<uint8_t> id = {0x10, 0xfa, 0xa6, 0xbb, 0xaa, 0xb8, 0x3d, 0xb3};
  EXPECT_EQ(DebugId::fromIdentifier(id).str(), "BBA6FA10B8AAB33D00000000000000000");
  EXPECT_EQ(CodeId::fromBytes(id).str(), "10FAA6BBAAB83DB3");
}

TEST(Identifiers, TextHashFallback) {
  std::string text(128, '\0');
  for (int i = 0; i < 128; ++i)
    text[i] = static_cast<char>((3 * i) % 256);
  std::vector<uint8_t> hash = textHash(text, text.size());
  std::vector<uint8_t> want = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00,
                               0x00, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80};
  EXPECT_EQ(hash, want);
  EXPECT_EQ(DebugId::fromIdentifier(hash).str(), "808080808080000000000080808080800");
  EXPECT_EQ(CodeId::fromBytes(hash).str(), "80808080808000000000008080808080");
}

TEST(Identifiers, TextHashReadsAtMost4KiB) {
  std::string text(8192, '\x01');
  std::vector<uint8_t> hash = textHash(text, text.size());
  // 256 chunks of 16 bytes of 0x01 XOR to zero.
  EXPECT_EQ(hash, std::vector<uint8_t>(16, 0));
}

TEST(Identifiers, TextHashShortTailUsesFollowingBytes) {
  // A 20-byte section: the second chunk takes 12 bytes past its end, as
  // Breakpad's client does when it computes the id a crash report carries.
  std::string bytes(32, '\0');
  bytes[0] = 1;
  bytes[16] = 2;
  bytes[25] = 7; // past the section's 20 bytes
  std::vector<uint8_t> hash = textHash(bytes, 20);
  EXPECT_EQ(hash[0], 3);
  EXPECT_EQ(hash[9], 7);
}

} // namespace
} // namespace dumpsyms
