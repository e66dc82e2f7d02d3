// OMAP: ranges and addresses of an image rewritten after linking mapped to
// the shipped image, and a whole module moved with them.
#include "dump/pdb/omap.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

// Original blocks A [0x1000, 0x1010), B [0x1010, 0x1020), C (dropped)
// [0x1020, 0x1030), D [0x1030, 0x1040); shipped as A D B, then the rest.
Omap sampleOmap() {
  std::vector<OmapEntry> from = {
      {0x1000, 0x1000}, {0x1010, 0x1020}, {0x1020, 0}, {0x1030, 0x1010}, {0x1040, 0x1040}};
  std::vector<OmapEntry> to = {
      {0x1000, 0x1000}, {0x1010, 0x1030}, {0x1020, 0x1010}, {0x1030, 0x1040}, {0x1040, 0x1040}};
  return Omap(from, to);
}

TEST(Omap, RangesSplitMergeAndDrop) {
  Omap omap = sampleOmap();
  // A and D end up side by side: one range; B alone; C gone.
  EXPECT_EQ(omap.mapRange(0x1000, 0x1040), (std::vector<AddressRange>{{0x1000, 0x1030}}));
  EXPECT_EQ(omap.mapRange(0x1008, 0x1018),
            (std::vector<AddressRange>{{0x1008, 0x1010}, {0x1020, 0x1028}}));
  EXPECT_TRUE(omap.mapRange(0x1020, 0x1030).empty());
  EXPECT_EQ(omap.mapAddress(0x1034), std::optional<uint64_t>(0x1014));
  EXPECT_FALSE(omap.mapAddress(0x1025));
  EXPECT_EQ(omap.mapAddress(0x2000), std::optional<uint64_t>(0x2000));
  EXPECT_FALSE(omap.mapAddress(0x10)); // before the first block: unmapped
}

TEST(Omap, ShippedBlocksShorterThanTheOriginal) {
  // The rewriter kept 8 of block A's 16 bytes.
  Omap omap({{0x1000, 0x3000}, {0x1010, 0x3008}}, {{0x3000, 0x1000}, {0x3008, 0x1010}});
  EXPECT_EQ(omap.mapRange(0x1000, 0x1010), (std::vector<AddressRange>{{0x3000, 0x3008}}));
}

TEST(Omap, ModuleMovesWithItsBlocks) {
  Module module;
  Function f;
  f.name = "f";
  f.ranges = {{0x1008, 0x1038}};
  f.lines = {{0x1008, 0x10, 7, 0}, {0x1018, 0x20, 8, 0}};
  InlineCall call;
  call.ranges = {{0x1030, 0x1038}};
  f.inlines = {call};
  InlineCall gone;
  gone.ranges = {{0x1020, 0x1028}};
  f.inlines.push_back(gone);
  module.functions = {f};
  module.publics = {{0x1034, "p", false, 4}, {0x1024, "dropped", false, 0}};
  StackWinRecord record;
  record.address = 0x1008;
  record.code_size = 0x30;
  record.program = "$T0 .raSearch =";
  module.stack_win = {record};

  applyOmap(module, sampleOmap());
  ASSERT_EQ(module.functions.size(), 1u);
  const Function& moved = module.functions[0];
  EXPECT_EQ(moved.ranges, (std::vector<AddressRange>{{0x1008, 0x1018}, {0x1020, 0x1030}}));
  ASSERT_EQ(moved.lines.size(), 4u);
  EXPECT_EQ(moved.lines[0], (SourceLine{0x1008, 8, 7, 0}));
  EXPECT_EQ(moved.lines[1], (SourceLine{0x1010, 8, 8, 0})); // D's part of line 8
  EXPECT_EQ(moved.lines[2], (SourceLine{0x1020, 8, 7, 0}));
  EXPECT_EQ(moved.lines[3], (SourceLine{0x1028, 8, 8, 0}));
  ASSERT_EQ(moved.inlines.size(), 1u);
  EXPECT_EQ(moved.inlines[0].ranges, (std::vector<AddressRange>{{0x1010, 0x1018}}));
  ASSERT_EQ(module.publics.size(), 1u);
  EXPECT_EQ(module.publics[0].address, 0x1014u);
  EXPECT_EQ(module.publics[0].parameter_size, 4u);
  ASSERT_EQ(module.stack_win.size(), 2u);
  EXPECT_EQ(module.stack_win[0].address, 0x1008u);
  EXPECT_EQ(module.stack_win[0].code_size, 0x10u);
  EXPECT_EQ(module.stack_win[1].address, 0x1020u);
  EXPECT_EQ(module.stack_win[1].program, "$T0 .raSearch =");
}

} // namespace
} // namespace dumpsyms
