// The ids that name a build (common/ids): each producer's spelling, the
// case rule, the typed-GUID key, and build ids' hex.
#include "common/ids/build_id.h"
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"
#include "common/ids/id_key.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(DebugId, EachProducersSpelling) {
  // A GUID in its in-memory order (Data1..3 little-endian) and an age in
  // lower-case hex, as Breakpad's Windows dumper prints it.
  std::array<uint8_t, 16> guid = {0xe7, 0x1e, 0x43, 0xe5, 0xb6, 0x91, 0xb8, 0xb9,
                                  0x4c, 0x4c, 0x44, 0x20, 0x50, 0x44, 0x42, 0x2e};
  EXPECT_EQ(DebugId::fromGuid(guid, 0x2a).str(), "E5431EE791B6B9B84C4C44205044422E2a");
  // ELF identifier bytes read the same way, age 0; short ones zero-padded.
  std::vector<uint8_t> build_id = {0x10, 0xfa, 0xa6, 0xbb, 0xaa, 0xb8, 0x3d, 0xb3};
  EXPECT_EQ(DebugId::fromIdentifier(build_id).str(), "BBA6FA10B8AAB33D00000000000000000");
  // A Mach-O UUID in byte order.
  std::array<uint8_t, 16> uuid = {0x4c, 0x4c, 0x44, 0x32, 0x55, 0x55, 0x31, 0x44,
                                  0xa1, 0xc8, 0x68, 0xa8, 0x56, 0x2c, 0x1d, 0xd7};
  EXPECT_EQ(DebugId::fromUuid(uuid).str(), "4C4C443255553144A1C868A8562C1DD70");
  EXPECT_EQ(DebugId::fromSignature(0x3C6F7E6A, 3).str(), "3C6F7E6A3");
  EXPECT_TRUE(DebugId::null().isNull());
  EXPECT_FALSE(DebugId("ABC0").isNull());
}

TEST(DebugId, SpellingsOfOneBuild) {
  DebugId written("E5431EE791B6B9B84C4C44205044422E2a");
  DebugId shouted("E5431EE791B6B9B84C4C44205044422E2A");
  EXPECT_NE(written, shouted); // the spelling is kept
  EXPECT_TRUE(written.sameBuild(shouted));
  EXPECT_FALSE(written.sameBuild(DebugId("E5431EE791B6B9B84C4C44205044422E2b")));
  // What people type: a GUID with braces and dashes has the same key.
  EXPECT_EQ(DebugId("{e5431ee7-91b6-b9b8-4c4c-44205044422e}2a").key(), shouted.key());
  EXPECT_TRUE(DebugId("ABC").isHex());
  EXPECT_FALSE(DebugId("AB-C").isHex());
  EXPECT_FALSE(DebugId().isHex());
  EXPECT_EQ(idKey(" ab-c{}"), "ABC");
  EXPECT_TRUE(isHexKey("0123ABCDEFabcdef"));
  EXPECT_FALSE(isHexKey("XYZ"));
}

TEST(CodeId, PeSpellingsAndCase) {
  EXPECT_EQ(CodeId::fromPeImage(0x45D35F6C, 0x2d000).str(), "45D35F6C2D000");
  EXPECT_EQ(CodeId::fromMinidumpPeModule(0x45D35F6C, 0x2d000).str(), "45D35F6C2d000");
  EXPECT_TRUE(CodeId::fromPeImage(0x45D35F6C, 0x2d000)
                  .sameExecutable(CodeId::fromMinidumpPeModule(0x45D35F6C, 0x2d000)));
  std::vector<uint8_t> bytes = {0xf1, 0x7a, 0x52, 0xc0};
  EXPECT_EQ(CodeId::fromBytes(bytes).str(), "F17A52C0");
  EXPECT_EQ(CodeId::fromBytes(bytes).lower(), "f17a52c0");
  EXPECT_EQ(CodeId("f17a52c0").key(), "F17A52C0");
}

TEST(BuildId, HexBothWays) {
  auto id = BuildId::parseHex("D4C3b2a1");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->hex(), "d4c3b2a1");
  EXPECT_EQ(id->bytes(), (std::vector<uint8_t>{0xd4, 0xc3, 0xb2, 0xa1}));
  EXPECT_FALSE(BuildId::parseHex("abc")); // odd
  EXPECT_FALSE(BuildId::parseHex("zz"));  // not hex
  EXPECT_FALSE(BuildId::parseHex(""));    // none
  EXPECT_TRUE(BuildId().empty());
}

} // namespace
} // namespace dumpsyms
