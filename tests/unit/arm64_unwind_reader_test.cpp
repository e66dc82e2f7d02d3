// The ARM64 unwind reader on .pdata and .xdata built here byte by byte,
// following Microsoft's "ARM64 exception handling": .xdata prologues and
// epilogue scopes, the packed forms (the format's own example), save_next,
// fragments, and bad records; checked by unwinding made-up stacks with the
// postfix evaluator the stack walker uses.
#include "dump/cfi/arm64_unwind_reader.h"
#include "tests/support/pe_unwind_eval.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>
#include <map>

namespace dumpsyms {
namespace {

// A made-up image, with the byte runs of .xdata records.
struct Image : test_support::PeImageBytes {
  void put(uint32_t at, const std::vector<uint8_t>& data) {
    std::copy(data.begin(), data.end(), bytes.begin() + at);
  }
};

std::vector<uint8_t> pdata(const std::vector<std::array<uint32_t, 2>>& entries) {
  std::vector<uint8_t> out;
  for (const auto& entry : entries)
    for (uint32_t v : entry)
      for (int i = 0; i < 4; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
  return out;
}

// An .xdata record at `at`: header, epilogue scopes (offset, start index),
// and the code bytes padded to whole words.
void xdata(Image& image, uint32_t at, uint32_t length,
           const std::vector<std::pair<uint32_t, uint32_t>>& scopes, std::vector<uint8_t> codes,
           bool single_epilogue = false, uint32_t single_index = 0) {
  while (codes.size() % 4)
    codes.push_back(0xe3);
  uint32_t words = uint32_t(codes.size() / 4);
  uint32_t count = single_epilogue ? single_index : uint32_t(scopes.size());
  image.put32(at, length / 4 | (single_epilogue ? 1u << 21 : 0) | count << 22 | words << 27);
  at += 4;
  for (const auto& [offset, index] : scopes) {
    image.put32(at, offset / 4 | index << 22);
    at += 4;
  }
  image.put(at, codes);
}

std::optional<uint64_t> memory(uint64_t address) {
  return address * 7 + 3;
}

RegisterValues unwind(const PeUnwindResult& result, uint64_t rva, const RegisterValues& callee) {
  return test_support::unwindPeFrames(result, rva, callee, llvm::ELF::EM_AARCH64, memory);
}

constexpr uint64_t S = 0x9000; // sp on entry
constexpr uint64_t LR = 0x4444, FP = 0x1111, X19 = 0x1919, X20 = 0x2020;

// stp x29,lr,[sp,#-32]!; stp x19,x20,[sp,#16]; mov x29,sp; body; then the
// mirrored epilogue at 0x20: mov sp,x29; ldp x19,x20,[sp,#16];
// ldp x29,lr,[sp],#32; ret.
class ChainedFrame : public ::testing::Test {
protected:
  void SetUp() override {
    xdata(image, 0x2000, 0x30, {{0x20, 0}}, {0xe1, 0xc8, 0x02, 0x83, 0xe4});
    result = readArm64Unwind(pdata({{0x1000, 0x2000}}), image.reader());
  }
  Image image;
  PeUnwindResult result;
};

TEST_F(ChainedFrame, PrologueBodyAndEpilogue) {
  ASSERT_TRUE(result.problems.empty()) << result.problems.front();
  ASSERT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.frames[0].range.end, 0x1030u);
  RegisterValues entry = unwind(result, 0x1000, {{"sp", S}, {"x30", LR}, {"x29", FP}});
  EXPECT_EQ(entry["sp"], S);
  EXPECT_EQ(entry["pc"], LR);
  EXPECT_EQ(entry["x29"], FP);
  // After the pair store: x29 at CFA-32, lr at CFA-24.
  RegisterValues stored = unwind(result, 0x1004, {{"sp", S - 32}, {"x30", LR}, {"x29", FP}});
  EXPECT_EQ(stored["sp"], S);
  EXPECT_EQ(stored["pc"], *memory(S - 24));
  EXPECT_EQ(stored["x29"], *memory(S - 32));
  // In the body the frame is found from x29, wherever sp is.
  for (uint64_t rva : {0x100cu, 0x1010u, 0x101cu, 0x1020u}) {
    RegisterValues body = unwind(result, rva, {{"sp", 0x1234}, {"x29", S - 32}, {"x19", 1}});
    EXPECT_EQ(body["sp"], S) << std::hex << rva;
    EXPECT_EQ(body["pc"], *memory(S - 24)) << std::hex << rva;
    EXPECT_EQ(body["x19"], *memory(S - 16)) << std::hex << rva;
    EXPECT_EQ(body["x20"], *memory(S - 8)) << std::hex << rva;
  }
  // After mov sp,x29: from sp again.
  RegisterValues unframed = unwind(result, 0x1024, {{"sp", S - 32}, {"x29", 7}, {"x19", 1}});
  EXPECT_EQ(unframed["sp"], S);
  EXPECT_EQ(unframed["x19"], *memory(S - 16));
  // After ldp x19,x20: they hold the caller's values.
  RegisterValues restored = unwind(result, 0x1028, {{"sp", S - 32}, {"x19", X19}, {"x20", X20}});
  EXPECT_EQ(restored["x19"], X19);
  EXPECT_EQ(restored["x20"], X20);
  EXPECT_EQ(restored["pc"], *memory(S - 24));
  // At the return: everything is back.
  RegisterValues at_ret = unwind(result, 0x102c, {{"sp", S}, {"x30", LR}, {"x29", FP}});
  EXPECT_EQ(at_ret["sp"], S);
  EXPECT_EQ(at_ret["pc"], LR);
  EXPECT_EQ(at_ret["x29"], FP);
}

TEST_F(ChainedFrame, EpilogueSharingNoCodesBeforeTheReturnAndCodeAfterIt) {
  // A second epilogue in the middle (at 0x14, undoing only the last code)
  // and body code after its return.
  xdata(image, 0x2000, 0x30, {{0x14, 3}, {0x20, 0}}, {0xe1, 0xc8, 0x02, 0x83, 0xe4});
  result = readArm64Unwind(pdata({{0x1000, 0x2000}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  // 0x14: ldp x29,lr,[sp],#32 (x19/x20 already restored: their own values).
  RegisterValues before = unwind(result, 0x1014, {{"sp", S - 32}, {"x19", X19}});
  EXPECT_EQ(before["sp"], S);
  EXPECT_EQ(before["pc"], *memory(S - 24));
  EXPECT_EQ(before["x19"], X19);
  EXPECT_EQ(unwind(result, 0x1018, {{"sp", S}, {"x30", LR}})["pc"], LR);
  // 0x1c: after that return, the body's rules again.
  RegisterValues after = unwind(result, 0x101c, {{"sp", 0x1234}, {"x29", S - 32}});
  EXPECT_EQ(after["sp"], S);
  EXPECT_EQ(after["x19"], *memory(S - 16));
}

TEST(Arm64UnwindReader, PackedExampleOfTheFormat) {
  // Microsoft's example 1: str x19,[sp,#-16]!; sub sp,sp,#0x810;
  // stp fp,lr,[sp]; mov fp,sp — packed as 0x416101ed (length 492).
  Image image;
  PeUnwindResult result = readArm64Unwind(pdata({{0x1000, 0x416101ed}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  ASSERT_EQ(result.frames.size(), 1u);
  EXPECT_EQ(result.frames[0].range.end, 0x1000u + 492);
  EXPECT_EQ(unwind(result, 0x1004, {{"sp", S - 16}, {"x30", LR}})["x19"], *memory(S - 16));
  EXPECT_EQ(unwind(result, 0x1008, {{"sp", S - 16 - 0x810}, {"x30", LR}})["sp"], S);
  RegisterValues stored = unwind(result, 0x100c, {{"sp", S - 16 - 0x810}});
  EXPECT_EQ(stored["pc"], *memory(S - 16 - 0x810 + 8));
  EXPECT_EQ(stored["x29"], *memory(S - 16 - 0x810));
  RegisterValues body = unwind(result, 0x1100, {{"sp", 0x10}, {"x29", S - 16 - 0x810}});
  EXPECT_EQ(body["sp"], S);
  EXPECT_EQ(body["x19"], *memory(S - 16));
  // The epilogue ends the function: ldp fp,lr,[sp]; add sp,sp,#0x810;
  // ldr x19,[sp],#16; ret.
  uint64_t epilogue = 0x1000 + 492 - 16;
  EXPECT_EQ(unwind(result, epilogue, {{"sp", S - 16 - 0x810}, {"x29", 5}})["sp"], S);
  RegisterValues freed = unwind(result, epilogue + 8, {{"sp", S - 16}, {"x30", LR}, {"x29", FP}});
  EXPECT_EQ(freed["sp"], S);
  EXPECT_EQ(freed["pc"], LR);
  EXPECT_EQ(freed["x29"], FP);
  EXPECT_EQ(freed["x19"], *memory(S - 16));
  RegisterValues at_ret = unwind(result, epilogue + 12, {{"sp", S}, {"x30", LR}, {"x19", X19}});
  EXPECT_EQ(at_ret["sp"], S);
  EXPECT_EQ(at_ret["x19"], X19);
}

TEST(Arm64UnwindReader, PackedUnchainedWithLinkRegisterAndFloats) {
  // RegI 2, CR 1 (lr with them), RegF 1 (d8, d9), frame 64:
  // stp x19,x20,[sp,#-48]!; str lr,[sp,#16]; stp d8,d9,[sp,#24];
  // sub sp,sp,#16.
  uint32_t word = 1 | (20u << 2) | (1u << 13) | (2u << 16) | (1u << 21) | (4u << 23);
  Image image;
  PeUnwindResult result = readArm64Unwind(pdata({{0x1000, word}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  RegisterValues body = unwind(result, 0x1010, {{"sp", S - 64}});
  EXPECT_EQ(body["sp"], S);
  EXPECT_EQ(body["x19"], *memory(S - 48));
  EXPECT_EQ(body["x20"], *memory(S - 40));
  EXPECT_EQ(body["pc"], *memory(S - 32));
  EXPECT_EQ(unwind(result, 0x1008, {{"sp", S - 48}})["pc"], *memory(S - 32));
  EXPECT_EQ(unwind(result, 0x1004, {{"sp", S - 48}, {"x30", LR}})["pc"], LR);
}

TEST(Arm64UnwindReader, SaveNextAndFragments) {
  Image image;
  // stp x19,x20,[sp,#-48]!; stp x21,x22,[sp,#16] (save_next); sub sp,#16.
  xdata(image, 0x2000, 0x40, {}, {0x01, 0xe6, 0xcc, 0x05, 0xe4});
  // A fragment of it: end_c first (no prologue of its own).
  xdata(image, 0x2100, 0x20, {}, {0xe5, 0x01, 0xe6, 0xcc, 0x05, 0xe4});
  // A packed fragment (flag 2) of a frame of 32 bytes, x19 saved.
  uint32_t packed_fragment = 2 | (8u << 2) | (1u << 16) | (2u << 23);
  PeUnwindResult result = readArm64Unwind(
      pdata({{0x1000, 0x2000}, {0x1100, 0x2100}, {0x1200, packed_fragment}}), image.reader());
  ASSERT_TRUE(result.problems.empty()) << result.problems.front();
  ASSERT_EQ(result.frames.size(), 3u);
  RegisterValues body = unwind(result, 0x1010, {{"sp", S - 64}, {"x30", LR}});
  EXPECT_EQ(body["sp"], S);
  EXPECT_EQ(body["x21"], *memory(S - 32));
  EXPECT_EQ(body["x22"], *memory(S - 24));
  EXPECT_EQ(unwind(result, 0x1008, {{"sp", S - 48}, {"x30", LR}})["x21"], *memory(S - 32));
  RegisterValues fragment = unwind(result, 0x1100, {{"sp", S - 64}, {"x30", LR}});
  EXPECT_EQ(fragment["sp"], S);
  EXPECT_EQ(fragment["x22"], *memory(S - 24));
  RegisterValues packed = unwind(result, 0x1200, {{"sp", S - 32}, {"x30", LR}});
  EXPECT_EQ(packed["sp"], S);
  EXPECT_EQ(packed["x19"], *memory(S - 16));
  EXPECT_EQ(packed["pc"], LR);
}

TEST(Arm64UnwindReader, BadEntriesAreSkippedWithAReason) {
  Image image;
  xdata(image, 0x2000, 0x40, {}, {0xe9, 0xe4});       // a machine frame
  xdata(image, 0x2100, 0x40, {}, {0xe6, 0xe4});       // save_next with nothing before
  image.put32(0x2200, 0x10 | 1u << 18 | 1u << 27);    // version 1
  image.put32(0x3ff8, 0x10 | 4u << 27);               // codes past the image
  xdata(image, 0x2300, 0x40, {{0x3c, 200}}, {0xe4});  // an epilogue naming no code
  xdata(image, 0x2400, 0x40, {}, {0xcb, 0xc0, 0xe4}); // save_regp of x34, x35
  PeUnwindResult result = readArm64Unwind(pdata({{0x1000, 0x2000},
                                                 {0x1100, 0x2100},
                                                 {0x1200, 0x2200},
                                                 {0x1300, 0x3ff8},
                                                 {0x1400, 0x3},
                                                 {0x1500, 0x2300},
                                                 {0x1600, 0x2400}}),
                                          image.reader());
  ASSERT_EQ(result.problems.size(), 6u);
  EXPECT_NE(result.problems[0].find("custom stack"), std::string::npos);
  EXPECT_NE(result.problems[1].find("save_next"), std::string::npos);
  EXPECT_NE(result.problems[2].find("version 1"), std::string::npos);
  EXPECT_NE(result.problems[3].find("runs past"), std::string::npos);
  EXPECT_NE(result.problems[4].find("reserved flag"), std::string::npos);
  EXPECT_NE(result.problems[5].find("past x30"), std::string::npos) << result.problems[5];
  ASSERT_EQ(result.frames.size(), 1u); // the last: its epilogue is left to the body's rules
  EXPECT_EQ(unwind(result, 0x153c, {{"sp", S}, {"x30", LR}})["pc"], LR);
}

// The byte length of each first byte, from the table of Microsoft's
// "ARM64 exception handling", written out here rather than taken from the
// reader.
size_t documentedLength(uint8_t b0) {
  if (b0 <= 0xbf)
    return 1; // alloc_s, save_r19r20_x, save_fplr, save_fplr_x
  if (b0 <= 0xdf)
    return 2; // alloc_m ... save_freg_x, alloc_z
  static const std::map<uint8_t, size_t> rest = {
      {0xe0, 4}, {0xe1, 1}, {0xe2, 2}, {0xe3, 1}, {0xe4, 1}, {0xe5, 1}, {0xe6, 1}, {0xe7, 3},
      {0xe8, 1}, {0xe9, 1}, {0xea, 1}, {0xeb, 1}, {0xec, 1}, {0xed, 1}, {0xee, 1}, {0xef, 1},
      {0xf0, 1}, {0xf1, 1}, {0xf2, 1}, {0xf3, 1}, {0xf4, 1}, {0xf5, 1}, {0xf6, 1}, {0xf7, 1},
      {0xf8, 2}, {0xf9, 3}, {0xfa, 4}, {0xfb, 5}, {0xfc, 1}, {0xfd, 1}, {0xfe, 1}, {0xff, 1}};
  return rest.at(b0);
}

// Every first byte but the sequence markers (end, end_c) and save_next
// (which needs a pair before it): the code, with zero operand bytes, runs
// first in the prologue, then `str x1,[sp]` (save_any_reg, stored first:
// 0xe7 0x01 0x00). When the code's length is read right, x1's rule starts
// at the third
// instruction (0x1008), whatever the code does; a code read one byte short
// or long moves it, since the zero operands read as alloc_s 0 and nops pad
// the end. The codes the format gives no rule for refuse the function and
// say which code it was; reserved codes are skipped with a note.
TEST(Arm64UnwindReader, EveryCodeOfTheTableIsReadWithItsLength) {
  const std::map<uint8_t, std::string> refused = {{0xdf, "alloc_z"},
                                                  {0xe8, "MSFT_OP_TRAP_FRAME"},
                                                  {0xe9, "MSFT_OP_MACHINE_FRAME"},
                                                  {0xea, "MSFT_OP_CONTEXT"},
                                                  {0xeb, "MSFT_OP_EC_CONTEXT"},
                                                  // Zero operands: x31 and up.
                                                  {0xcb, "past x30"},
                                                  {0xcf, "past x30"},
                                                  {0xd3, "past x30"}};
  int kept = 0;
  for (int code = 0; code < 256; ++code) {
    uint8_t b0 = uint8_t(code);
    if (b0 == 0xe4 || b0 == 0xe5 || b0 == 0xe6)
      continue;
    std::vector<uint8_t> codes = {0xe7, 0x01, 0x00, b0};
    codes.resize(codes.size() + documentedLength(b0) - 1, 0x00);
    codes.insert(codes.end(), {0xe4, 0xe3, 0xe3, 0xe3, 0xe3, 0xe3});
    Image image;
    xdata(image, 0x2000, 0x40, {}, codes);
    PeUnwindResult result = readArm64Unwind(pdata({{0x1000, 0x2000}}), image.reader());
    SCOPED_TRACE(fmt::format("code {:#04x}", b0));
    if (auto it = refused.find(b0); it != refused.end()) {
      EXPECT_TRUE(result.frames.empty());
      ASSERT_EQ(result.problems.size(), 1u);
      EXPECT_NE(result.problems[0].find(it->second), std::string::npos) << result.problems[0];
      continue;
    }
    ASSERT_EQ(result.frames.size(), 1u) << (result.problems.empty() ? "" : result.problems[0]);
    bool reserved = (b0 >= 0xed && b0 <= 0xfb) || b0 >= 0xfd;
    EXPECT_EQ(result.problems.size(), reserved ? 1u : 0u);
    if (reserved) {
      EXPECT_NE(result.problems[0].find("reserved"), std::string::npos) << result.problems[0];
    }
    const CfiFrame& frame = result.frames[0];
    uint64_t x1_from = 0;
    for (const CfiChange& change : frame.changes)
      for (const CfiRule& rule : change.rules)
        if (rule.name == "x1" && !x1_from)
          x1_from = change.address;
    EXPECT_EQ(x1_from, 0x1008u);
    ++kept;
  }
  EXPECT_EQ(kept, 256 - 3 - 8);
}

// MSFT_OP_CLEAR_UNWOUND_TO_CALL: the caller's pc is lr as it stood at the
// code. Before lr's save in the prologue, that is lr's slot (the same as
// without the code); after it, the live lr, while the caller's lr is still
// reloaded from its slot.
TEST(Arm64UnwindReader, ClearUnwoundToCallKeepsTheFunction) {
  Image image;
  // clear_unwound_to_call; stp x29,lr,[sp,#-16]!; end.
  xdata(image, 0x2000, 0x20, {}, {0x81, 0xec, 0xe4});
  // stp x29,lr,[sp,#-16]!; clear_unwound_to_call; sub sp,#16; end.
  xdata(image, 0x2100, 0x20, {}, {0x01, 0xec, 0x81, 0xe4});
  PeUnwindResult result =
      readArm64Unwind(pdata({{0x1000, 0x2000}, {0x1100, 0x2100}}), image.reader());
  ASSERT_TRUE(result.problems.empty()) << result.problems.front();
  ASSERT_EQ(result.frames.size(), 2u);
  constexpr uint64_t LIVE = 0x7777;
  RegisterValues before = unwind(result, 0x1010, {{"sp", S - 16}, {"x30", LIVE}});
  EXPECT_EQ(before["sp"], S);
  EXPECT_EQ(before["pc"], *memory(S - 8));
  EXPECT_EQ(before["x29"], *memory(S - 16));
  EXPECT_EQ(unwind(result, 0x1004, {{"sp", S}, {"x30", LR}})["pc"], LR);
  RegisterValues after = unwind(result, 0x1110, {{"sp", S - 32}, {"x30", LIVE}});
  EXPECT_EQ(after["sp"], S);
  EXPECT_EQ(after["pc"], LIVE);
  EXPECT_EQ(after["x30"], *memory(S - 8));
  EXPECT_EQ(after["x29"], *memory(S - 16));
  // Between the save and the code, lr still comes from its slot.
  EXPECT_EQ(unwind(result, 0x1104, {{"sp", S - 16}, {"x30", LIVE}})["pc"], *memory(S - 8));
}

// pac_sign_lr (pacibsp) and the SVE stores that leave sp alone are
// instructions without a rule of their own: the frame around them is kept.
TEST(Arm64UnwindReader, PacSignAndSveStoresLeaveTheFrame) {
  Image image;
  // pacibsp; stp x29,lr,[sp,#-16]!; str z8,[sp,#1,mul vl]; str p4,[sp]; end.
  xdata(image, 0x2000, 0x40, {}, {0xe7, 0x10 | 4, 0xc0, 0xe7, 0x08, 0xc1, 0x81, 0xfc, 0xe4});
  // save_any_reg with the reserved bit: skipped as one instruction.
  xdata(image, 0x2100, 0x40, {}, {0x01, 0xe7, 0x80, 0x00, 0xe4});
  PeUnwindResult result =
      readArm64Unwind(pdata({{0x1000, 0x2000}, {0x1100, 0x2100}}), image.reader());
  ASSERT_EQ(result.frames.size(), 2u);
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_NE(result.problems[0].find("0xe7"), std::string::npos) << result.problems[0];
  EXPECT_EQ(unwind(result, 0x1004, {{"sp", S}, {"x30", LR}})["pc"], LR);
  RegisterValues body = unwind(result, 0x1020, {{"sp", S - 16}, {"x30", 5}});
  EXPECT_EQ(body["sp"], S);
  EXPECT_EQ(body["pc"], *memory(S - 8));
  EXPECT_EQ(unwind(result, 0x1104, {{"sp", S}, {"x30", LR}})["sp"], S);
  EXPECT_EQ(unwind(result, 0x1108, {{"sp", S - 16}, {"x30", LR}})["sp"], S);
}

} // namespace
} // namespace dumpsyms
