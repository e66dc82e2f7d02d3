// DWARF expressions as compilers and linkers write them in CFI, and their
// postfix translations.
#include "common/limits/input_limits.h"
#include "dump/cfi/postfix_translation.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {
namespace {

using namespace llvm::dwarf;

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values)
    out.push_back(static_cast<char>(v));
  return out;
}

const RegisterNames& x86_64() {
  static RegisterNames names = *RegisterNames::forMachine(llvm::ELF::EM_X86_64, true);
  return names;
}
const RegisterNames& i386() {
  static RegisterNames names = *RegisterNames::forMachine(llvm::ELF::EM_386, false);
  return names;
}

TEST(PostfixTranslation, PltCfaOfBfdLinker) {
  // DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_lit11;
  // DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
  std::string e = bytes({DW_OP_breg7, 8, DW_OP_breg16, 0, DW_OP_lit15, DW_OP_and, DW_OP_lit11,
                         DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus});
  PostfixResult r = translateExpression(e, true, x86_64(), false, false);
  EXPECT_EQ(r.postfix, "$rsp 8 + $rip 0 + 16 % 11 / 8 * +");
}

TEST(PostfixTranslation, I386StackRealignment) {
  // CFA = *(ebp - 4)
  PostfixResult cfa =
      translateExpression(bytes({DW_OP_breg5, 0x7c, DW_OP_deref}), true, i386(), false, false);
  EXPECT_EQ(cfa.postfix, "$ebp -4 + ^");
  // DW_CFA_expression ebp: saved at ebp + 0 (the CFA is pushed first, unused)
  PostfixResult ebp = translateExpression(bytes({DW_OP_breg5, 0}), true, i386(), true, true);
  EXPECT_EQ(ebp.postfix, "$ebp 0 + ^");
}

TEST(PostfixTranslation, ExpressionRulesSeeTheCfa) {
  // DW_CFA_val_expression: value = CFA + 16 via DW_OP_plus_uconst
  PostfixResult r =
      translateExpression(bytes({DW_OP_plus_uconst, 16}), true, x86_64(), true, false);
  EXPECT_EQ(r.postfix, ".cfa 16 +");
}

TEST(PostfixTranslation, AlignmentMaskBecomesAt) {
  // (rsp + 8) & -16
  PostfixResult r =
      translateExpression(bytes({DW_OP_breg7, 8, DW_OP_const1s, 0xf0 /* -16 */, DW_OP_and}), true,
                          x86_64(), false, false);
  EXPECT_EQ(r.postfix, "$rsp 8 + 16 @");
}

TEST(PostfixTranslation, ConstantsFold) {
  PostfixResult r =
      translateExpression(bytes({DW_OP_breg7, 0, DW_OP_lit4, DW_OP_lit2, DW_OP_mul, DW_OP_minus}),
                          true, x86_64(), false, false);
  EXPECT_EQ(r.postfix, "$rsp -8 +");
}

TEST(PostfixTranslation, RefusesWhatPostfixCannotSay) {
  EXPECT_TRUE(translateExpression(bytes({DW_OP_breg7, 0, DW_OP_breg6, 0, DW_OP_xor}), true,
                                  x86_64(), false, false)
                  .postfix.empty());
  EXPECT_TRUE(
      translateExpression(bytes({DW_OP_breg7, 0, DW_OP_skip, 0, 0}), true, x86_64(), false, false)
          .postfix.empty());
  // Comparing an unbounded register is not a division.
  PostfixResult r = translateExpression(bytes({DW_OP_breg7, 0, DW_OP_lit11, DW_OP_ge}), true,
                                        x86_64(), false, false);
  EXPECT_TRUE(r.postfix.empty());
  EXPECT_FALSE(r.reason.empty());
}

TEST(PostfixTranslation, LiteralsAreSignedAtTheWordSize) {
  EXPECT_EQ(postfixLiteral(0xfffffff8u, 4), "-8");
  EXPECT_EQ(postfixLiteral(0xfffffffffffffff8ull, 8), "-8");
  EXPECT_EQ(postfixLiteral(16, 8), "16");
}

TEST(PostfixTranslation, StackAndTextPastTheLimitsAreRefusedWithTheLimit) {
  std::string deep(limits::kMaxExpressionStack + 1, char(DW_OP_lit1));
  PostfixResult r = translateExpression(deep, true, x86_64(), false, false);
  EXPECT_TRUE(r.postfix.empty());
  EXPECT_EQ(r.reason, "the expression's stack is over the limit of 64 values");
  // DW_OP_dup; DW_OP_plus doubles the text each time: 2^40 characters
  // unless the bound stops it.
  std::string doubling = bytes({DW_OP_breg7, 0});
  for (int i = 0; i < 40; ++i)
    doubling += bytes({DW_OP_dup, DW_OP_plus});
  r = translateExpression(doubling, true, x86_64(), false, false);
  EXPECT_TRUE(r.postfix.empty());
  EXPECT_EQ(r.reason, "its postfix text is over the limit of 4096 characters");
}

} // namespace
} // namespace dumpsyms
