#include "common/limits/input_limits.h"
#include "dump/cfi/linux_gate.h"
#include "symbol_file/rules/postfix_evaluator.h"
#include "symbol_file/text/text_writer.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>
#include <sstream>

namespace dumpsyms {
namespace {

MemoryReader memoryOf(std::map<uint64_t, uint64_t> words) {
  return [words](uint64_t address) -> std::optional<uint64_t> {
    auto found = words.find(address);
    if (found == words.end())
      return std::nullopt;
    return found->second;
  };
}

TEST(PostfixEvaluator, Arithmetic) {
  PostfixEvaluator e(8, memoryOf({{0x1008, 0xabc}}));
  RegisterValues v{{"$rsp", 0x1000}, {".cfa", 0x1010}};
  EXPECT_EQ(e.evaluate("$rsp 8 +", v), 0x1008u);
  EXPECT_EQ(e.evaluate("$rsp 8 + ^", v), 0xabcu);
  EXPECT_EQ(e.evaluate(".cfa -8 +", v), 0x1008u);
  EXPECT_EQ(e.evaluate("$rsp 7 + 16 @", v), 0x1000u);
  EXPECT_EQ(e.evaluate("$rsp 3 * 16 / 7 %", v), (0x3000u / 16) % 7);
  EXPECT_EQ(e.evaluate("$rsp 0 + 16 % 11 / 8 * $rsp +", v), 0x1000u);
}

TEST(PostfixEvaluator, Failures) {
  PostfixEvaluator e(8, memoryOf({}));
  RegisterValues v{{"$rsp", 0x1000}};
  EXPECT_FALSE(e.evaluate("$rbp 8 +", v)); // unknown register
  EXPECT_FALSE(e.evaluate("$rsp ^", v));   // memory not available
  EXPECT_FALSE(e.evaluate("$rsp 0 /", v)); // division by zero
  EXPECT_FALSE(e.evaluate("$rsp 8", v));   // two values left
  EXPECT_FALSE(e.evaluate("+", v));        // underflow
  EXPECT_FALSE(e.evaluate(".undef", v));   // Breakpad's "cannot recover"
}

TEST(PostfixEvaluator, WordSizeWraps) {
  PostfixEvaluator e(4, memoryOf({}));
  EXPECT_EQ(e.evaluate("$esp -8 +", {{"$esp", 4}}), 0xfffffffcu);
}

TEST(PostfixEvaluator, StackWinProgram) {
  // The FrameData example of the format description.
  PostfixEvaluator e(4, memoryOf({{0x2000, 0x1f00}, {0x2004, 0x401234}}));
  RegisterValues v{{"$ebp", 0x2000}, {"$esp", 0x1ff0}};
  ASSERT_TRUE(e.execute("$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ = $esp $T0 8 + =", v));
  EXPECT_EQ(v["$eip"], 0x401234u);
  EXPECT_EQ(v["$ebp"], 0x1f00u);
  EXPECT_EQ(v["$esp"], 0x2008u);
  EXPECT_FALSE(e.execute("$T0 $ebp", v)); // values left over
  EXPECT_FALSE(e.execute("eip 1 =", v));  // assignment to a non-$ name
}

// The linux-gate templates parse as written, and the program the x86
// walker builds for their record (allocates_base_pointer, no program string)
// recovers the caller from a thread blocked in __kernel_vsyscall.
TEST(LinuxGate, TemplatesEvaluate) {
  for (LinuxGateVendor vendor : {LinuxGateVendor::Intel, LinuxGateVendor::Amd}) {
    Module m = linuxGateTemplate(vendor);
    std::ostringstream out;
    writeSymbolFile(m, {}, out);
    std::string text = out.str();
    // Breakpad's files, byte for byte (its Intel file lacks the final newline).
    EXPECT_EQ(text, vendor == LinuxGateVendor::Intel
                        ? "MODULE Linux x86 4FBDA58B5A1DF5A379E3CF19A235EA090 linux-gate.so\n"
                          "PUBLIC 400 0 __kernel_vsyscall\n"
                          "STACK WIN 4 400 200 3 3 0 0 0 0 0 1\n"
                        : "MODULE Linux x86 B8CFDE93002D54DA1900A40AA1BD67690 linux-gate.so\n"
                          "PUBLIC 400 0 __kernel_vsyscall\n"
                          "STACK WIN 4 400 100 1 1 0 0 0 0 0 1\n");
    std::istringstream lines(text);
    std::string line;
    std::vector<std::string> win;
    while (std::getline(lines, line))
      if (line.rfind("STACK WIN ", 0) == 0) {
        std::istringstream fields(line);
        std::string f;
        while (fields >> f)
          win.push_back(f);
      }
    ASSERT_EQ(win.size(), 13u);
    EXPECT_EQ(win[2], "4");
    uint64_t params = std::stoull(win[7], nullptr, 16), saved = std::stoull(win[8], nullptr, 16);
    uint64_t locals = std::stoull(win[9], nullptr, 16);
    ASSERT_EQ(win[11], "0"); // no program string
    ASSERT_EQ(win[12], "1"); // allocates_base_pointer
    // Thread blocked in the stub: esp points at the return address.
    uint64_t esp = 0xbfff0000;
    PostfixEvaluator e(4, memoryOf({{esp, 0x08048abc}, {esp - 8, 0xbfff0040}}));
    RegisterValues v{{"$esp", esp},
                     {"$ebp", 0x1234},
                     {".raSearchStart", esp + params + saved + locals},
                     {".cbCalleeParams", 0},
                     {".cbSavedRegs", saved},
                     {".cbParams", params}};
    ASSERT_TRUE(
        e.execute("$eip .raSearchStart ^ = $ebp $esp .cbCalleeParams + .cbSavedRegs + 8 - ^ = "
                  "$esp .raSearchStart 4 + =",
                  v));
    EXPECT_EQ(v["$eip"], 0x08048abcu);
    EXPECT_EQ(v["$esp"], esp + 4);
    EXPECT_EQ(v["$ebp"], 0xbfff0040u);
  }
}

TEST(RecoverCallerRegisters, X86_64Frame) {
  RegisterNames names = *RegisterNames::forMachine(llvm::ELF::EM_X86_64, true);
  std::map<std::string, std::string> rules{
      {".cfa", "$rsp 16 +"}, {".ra", ".cfa -8 + ^"}, {"$rbp", ".cfa -16 + ^"}, {"$r12", ".undef"}};
  RegisterValues callee{{"$rsp", 0x7000}, {"$rip", 0x401000}, {"$rbp", 1},
                        {"$rbx", 2},      {"$r12", 3},        {"$rax", 4}};
  auto caller = recoverCallerRegisters(rules, callee, names, llvm::ELF::EM_X86_64,
                                       memoryOf({{0x7008, 0x402000}, {0x7000, 0x7100}}));
  ASSERT_TRUE(caller);
  EXPECT_EQ((*caller)["$rip"], 0x402000u);
  EXPECT_EQ((*caller)["$rsp"], 0x7010u);
  EXPECT_EQ((*caller)["$rbp"], 0x7100u);
  EXPECT_EQ((*caller)["$rbx"], 2u);    // callee-saved, no rule: kept
  EXPECT_FALSE(caller->count("$r12")); // .undef: not recoverable
  EXPECT_FALSE(caller->count("$rax")); // caller-saved: unknown
  EXPECT_FALSE(recoverCallerRegisters({{".cfa", "$rsp 8 +"}}, callee, names, llvm::ELF::EM_X86_64,
                                      memoryOf({})));
}

TEST(ParseCfiRules, ReadsAndRejects) {
  auto rules = parseCfiRules(".cfa: $rsp 8 + .ra: .cfa -8 + ^");
  ASSERT_TRUE(rules);
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[1].expression, ".cfa -8 + ^");
  EXPECT_FALSE(parseCfiRules("$rsp 8 +"));
  EXPECT_FALSE(parseCfiRules(".cfa: .ra: $rsp"));
}

TEST(PostfixEvaluator, StackDeeperThanTheLimitFails) {
  PostfixEvaluator e(8, memoryOf({}));
  auto sum = [](size_t operands) {
    std::string text;
    for (size_t i = 0; i < operands; ++i)
      text += "1 ";
    for (size_t i = 1; i < operands; ++i)
      text += "+ ";
    return text;
  };
  EXPECT_EQ(e.evaluate(sum(limits::kMaxExpressionStack), {}), limits::kMaxExpressionStack);
  EXPECT_FALSE(e.evaluate(sum(limits::kMaxExpressionStack + 1), {}));
  RegisterValues values;
  std::string program;
  for (size_t i = 0; i < limits::kMaxExpressionStack + 1; ++i)
    program += "$eax ";
  EXPECT_FALSE(e.execute(program, values));
}

} // namespace
} // namespace dumpsyms
