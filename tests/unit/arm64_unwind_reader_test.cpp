// The ARM64 unwind reader on .pdata and .xdata built here byte by byte,
// following Microsoft's "ARM64 exception handling": .xdata prologues and
// epilogue scopes, the packed forms (the format's own example), save_next,
// fragments, and bad records; checked by unwinding made-up stacks with the
// postfix evaluator the stack walker uses.
#include "cfi/arm64_unwind_reader.h"
#include "tests/support/pe_unwind_eval.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>

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

} // namespace
} // namespace dumpsyms
