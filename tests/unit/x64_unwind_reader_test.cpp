// The x64 unwind reader on UNWIND_INFO built here byte by byte, following
// Microsoft's description of the format: every operation, chained entries
// and trap frames, checked by unwinding made-up stacks with the postfix
// evaluator the stack walker uses.
#include "dump/cfi/x64_unwind_reader.h"
#include "tests/support/pe_unwind_eval.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {
namespace {

using Image = test_support::PeImageBytes;

// One unwind code slot: (prologue offset, operation | info << 4), or a raw
// operand slot.
struct Slot {
  uint16_t value;
};
Slot code(uint8_t offset, uint8_t op, uint8_t info) {
  return {uint16_t(offset | ((op | (info << 4)) << 8))};
}
Slot operand(uint16_t v) {
  return {v};
}

// UNWIND_INFO at `at`; slots in table order (latest prologue step first).
void unwindInfo(Image& image, uint32_t at, uint8_t flags, uint8_t prolog, uint8_t frame_register,
                uint8_t frame_offset, const std::vector<Slot>& slots) {
  image.bytes[at] = uint8_t(1 | (flags << 3));
  image.bytes[at + 1] = prolog;
  image.bytes[at + 2] = uint8_t(slots.size());
  image.bytes[at + 3] = uint8_t(frame_register | (frame_offset << 4));
  for (size_t i = 0; i < slots.size(); ++i)
    image.put16(uint32_t(at + 4 + 2 * i), slots[i].value);
}

std::vector<uint8_t> pdata(const std::vector<std::array<uint32_t, 3>>& entries) {
  std::vector<uint8_t> out;
  for (const auto& entry : entries)
    for (uint32_t v : entry)
      for (int i = 0; i < 4; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
  return out;
}

constexpr uint8_t RAX = 0, RBX = 3, RBP = 5, RSI = 6, R12 = 12;
constexpr uint8_t PUSH = 0, ALLOC_LARGE = 1, ALLOC_SMALL = 2, SET_FPREG = 3, SAVE_NONVOL = 4,
                  SAVE_NONVOL_FAR = 5, SAVE_XMM128 = 8, PUSH_MACHFRAME = 10;

// Memory holds a distinct value at every address.
std::optional<uint64_t> memory(uint64_t address) {
  return address * 7 + 3;
}

RegisterValues unwind(const X64UnwindResult& result, uint64_t rva, const RegisterValues& callee) {
  return test_support::unwindPeFrames(result, rva, callee, llvm::ELF::EM_X86_64, memory);
}

// push rbp; sub rsp, 64; lea rbp, [rsp+32]; mov [rsp], rbx — entered with
// rsp = E (the return address at [E]).
class FramePointerPrologue : public ::testing::Test {
protected:
  void SetUp() override {
    unwindInfo(image, 0x2000, 0, 20, RBP, 2,
               {code(15, SAVE_NONVOL, RBX), operand(0), code(10, SET_FPREG, 0),
                code(5, ALLOC_SMALL, 7), code(1, PUSH, RBP)});
    result = readX64Unwind(pdata({{0x1000, 0x1040, 0x2000}}), image.reader());
  }
  Image image;
  X64UnwindResult result;
  static constexpr uint64_t E = 0x9000;
};

TEST_F(FramePointerPrologue, EveryPrologueStepAndTheBody) {
  ASSERT_TRUE(result.problems.empty());
  ASSERT_EQ(result.frames.size(), 1u);
  // At entry: nothing pushed yet.
  RegisterValues at_entry = unwind(result, 0x1000, {{"$rsp", E}, {"$rbp", 1}, {"$rbx", 2}});
  EXPECT_EQ(at_entry["$rsp"], E + 8);
  EXPECT_EQ(at_entry["$rip"], *memory(E));
  EXPECT_EQ(at_entry["$rbp"], 1u);
  // After push rbp.
  RegisterValues pushed = unwind(result, 0x1001, {{"$rsp", E - 8}, {"$rbp", 1}, {"$rbx", 2}});
  EXPECT_EQ(pushed["$rsp"], E + 8);
  EXPECT_EQ(pushed["$rbp"], *memory(E - 8));
  // After the allocation.
  RegisterValues allocated = unwind(result, 0x1005, {{"$rsp", E - 72}, {"$rbp", 1}, {"$rbx", 2}});
  EXPECT_EQ(allocated["$rsp"], E + 8);
  EXPECT_EQ(allocated["$rip"], *memory(E));
  // In the body the frame is found from rbp (rsp may move with pushes).
  for (uint64_t rva : {0x100au, 0x100fu, 0x1030u}) {
    RegisterValues body =
        unwind(result, rva, {{"$rsp", 0x1234}, {"$rbp", E - 72 + 32}, {"$rbx", 2}});
    EXPECT_EQ(body["$rsp"], E + 8) << std::hex << rva;
    EXPECT_EQ(body["$rip"], *memory(E));
    EXPECT_EQ(body["$rbp"], *memory(E - 8));
    if (rva >= 0x100f) {
      EXPECT_EQ(body["$rbx"], *memory(E - 72)); // [establisher frame + 0]
    }
  }
}

TEST_F(FramePointerPrologue, ChainedEntryStartsFromTheWholePrologue) {
  // A fragment [0x1040, 0x1060) of the same function: its UNWIND_INFO has
  // no codes and chains to the entry above.
  unwindInfo(image, 0x2100, /*UNW_FLAG_CHAININFO*/ 4, 0, 0, 0, {});
  image.put32(0x2104, 0x1000);
  image.put32(0x2108, 0x1040);
  image.put32(0x210c, 0x2000);
  result =
      readX64Unwind(pdata({{0x1000, 0x1040, 0x2000}, {0x1040, 0x1060, 0x2100}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  ASSERT_EQ(result.frames.size(), 2u);
  RegisterValues body = unwind(result, 0x1040, {{"$rsp", 0}, {"$rbp", E - 40}, {"$rbx", 2}});
  EXPECT_EQ(body["$rsp"], E + 8);
  EXPECT_EQ(body["$rbp"], *memory(E - 8));
  EXPECT_EQ(body["$rbx"], *memory(E - 72));
}

TEST(X64UnwindReader, LargeAllocationsAndFarSaves) {
  Image image;
  // push r12; sub rsp, 0x1000 (ALLOC_LARGE, slot * 8); sub rsp, 0x20000
  // (ALLOC_LARGE, 32-bit); mov [rsp + 0x20010], rsi (SAVE_NONVOL_FAR);
  // movaps [rsp + 0x40], xmm6 (ignored: no XMM rules).
  unwindInfo(image, 0x2000, 0, 30, 0, 0,
             {code(30, SAVE_XMM128, 6), operand(4), code(25, SAVE_NONVOL_FAR, RSI), operand(0x0010),
              operand(0x0002), code(20, ALLOC_LARGE, 1), operand(0x0000), operand(0x0002),
              code(10, ALLOC_LARGE, 0), operand(0x1000 / 8), code(2, PUSH, R12)});
  X64UnwindResult result = readX64Unwind(pdata({{0x1000, 0x1100, 0x2000}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  const uint64_t E = 0x100000;
  uint64_t rsp = E - 8 - 0x1000 - 0x20000;
  RegisterValues body = unwind(result, 0x1080, {{"$rsp", rsp}, {"$r12", 1}, {"$rsi", 2}});
  EXPECT_EQ(body["$rsp"], E + 8);
  EXPECT_EQ(body["$rip"], *memory(E));
  EXPECT_EQ(body["$r12"], *memory(E - 8));
  EXPECT_EQ(body["$rsi"], *memory(rsp + 0x20010));
  // Between the two allocations.
  RegisterValues middle = unwind(result, 0x1010, {{"$rsp", E - 8 - 0x1000}, {"$r12", 1}});
  EXPECT_EQ(middle["$rsp"], E + 8);
}

TEST(X64UnwindReader, TrapFrame) {
  Image image;
  // An interrupt handler: the CPU pushed an error code and a machine frame
  // (rip at +8, rsp at +32 from the error code); then push rax.
  unwindInfo(image, 0x2000, 0, 2, 0, 0, {code(2, PUSH, RAX), code(0, PUSH_MACHFRAME, 1)});
  X64UnwindResult result = readX64Unwind(pdata({{0x1000, 0x1010, 0x2000}}), image.reader());
  ASSERT_TRUE(result.problems.empty());
  const uint64_t T = 0x7000; // where the error code is
  RegisterValues body = unwind(result, 0x1004, {{"$rsp", T - 8}, {"$rax", 1}});
  EXPECT_EQ(body["$rip"], *memory(T + 8));
  EXPECT_EQ(body["$rsp"], *memory(T + 32));
  EXPECT_EQ(body["$rax"], *memory(T - 8));
}

TEST(X64UnwindReader, BadEntriesAreSkippedWithAReason) {
  Image image;
  unwindInfo(image, 0x2000, 0, 0, 0, 0, {code(1, 15, 0)});            // unknown operation
  image.bytes[0x2100] = 3;                                            // version 3
  unwindInfo(image, 0x2200, 0, 4, 0, 0, {code(4, SAVE_NONVOL, RBX)}); // operand missing
  X64UnwindResult result = readX64Unwind(pdata({{0x1000, 0x1010, 0x2000},
                                                {0x1010, 0x1020, 0x2100},
                                                {0x1020, 0x1030, 0x2200},
                                                {0x1030, 0x1040, 0x3ffe},   // past the image
                                                {0x1050, 0x1040, 0x2000}}), // empty range
                                         image.reader());
  EXPECT_TRUE(result.frames.empty());
  EXPECT_EQ(result.problems.size(), 5u);
}

TEST(X64UnwindReader, ChainsPastTheLimitAreAProblemNotAHang) {
  // UNWIND_INFO chained to itself, and a RUNTIME_FUNCTION chained (the
  // compact way, an odd address) to itself.
  Image image;
  unwindInfo(image, 0x2000, 0x4, 0, 0, 0, {});
  image.put32(0x2004 + 8, 0x2000);
  image.put32(0x3000 + 8, 0x3001);
  X64UnwindResult result =
      readX64Unwind(pdata({{0x1000, 0x1010, 0x2000}, {0x1010, 0x1020, 0x3001}}), image.reader());
  EXPECT_TRUE(result.frames.empty());
  ASSERT_EQ(result.problems.size(), 2u);
  EXPECT_NE(result.problems[0].find("its length is over the limit of 32 links"), std::string::npos)
      << result.problems[0];
  EXPECT_NE(result.problems[1].find("its length is over the limit of 32 links"), std::string::npos)
      << result.problems[1];
}

} // namespace
} // namespace dumpsyms
