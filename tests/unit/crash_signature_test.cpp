// Crash signatures (walk/signature/): the frame names Socorro's rules make,
// and the sentinel, irrelevant and prefix lists applied to a stack.
#include "walk/signature/crash_signature.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(FrameName, DropsParametersReturnTypesAndQualifiers) {
  EXPECT_EQ(normalizeFunctionName("int ns::Foo::bar(long, char const*) const"), "ns::Foo::bar");
  EXPECT_EQ(normalizeFunctionName("void f()"), "f");
  EXPECT_EQ(normalizeFunctionName("Foo::operator()(int) &&"), "Foo::operator()");
  EXPECT_EQ(normalizeFunctionName("(anonymous namespace)::helper(int)"),
            "(anonymous namespace)::helper");
  EXPECT_EQ(normalizeFunctionName("main"), "main");
}

TEST(FrameName, CollapsesTemplateArguments) {
  EXPECT_EQ(normalizeFunctionName("std::vector<int, std::allocator<int> >::push_back(int const&)"),
            "std::vector<T>::push_back");
  EXPECT_EQ(normalizeFunctionName("std::unique_ptr<Foo> make<Foo>(int)"), "make<T>");
  EXPECT_EQ(normalizeFunctionName("bool operator< <Foo>(Foo const&, Foo const&)"), "operator< <T>");
  EXPECT_EQ(normalizeFunctionName("Foo::operator<(Foo const&) const"), "Foo::operator<");
  EXPECT_EQ(normalizeFunctionName("Stream::operator<<(int)"), "Stream::operator<<");
  EXPECT_EQ(normalizeFunctionName("Foo::operator->() const"), "Foo::operator->");
  EXPECT_EQ(normalizeFunctionName("void* operator new[](unsigned long)"), "operator new[]");
}

TEST(FrameName, DropsCloneSuffixesRustHashesAndLambdaNumbers) {
  EXPECT_EQ(normalizeFunctionName("parse(char const*) [clone .cold]"), "parse");
  EXPECT_EQ(normalizeFunctionName("f(int) [clone .constprop.0] [clone .isra.0]"), "f");
  EXPECT_EQ(normalizeFunctionName("app::crash::h0123456789abcdef"), "app::crash");
  EXPECT_EQ(normalizeFunctionName("app::crash::hxyz"), "app::crash::hxyz");
  EXPECT_EQ(normalizeFunctionName("run()::$_12::operator()() const"), "run()::$::operator()");
}

TEST(FrameName, FramesWithoutFunctions) {
  EXPECT_EQ(signatureFrameName({"", "libfoo.so", 0x1a2b, 0x7f001a2b}), "libfoo.so@0x1a2b");
  EXPECT_EQ(signatureFrameName({"", "", std::nullopt, 0xdeadbeef}), "@0xdeadbeef");
  EXPECT_EQ(signatureFrameName({"int f(int)", "libfoo.so", 0x10, 0}), "f");
}

SignatureRules rulesOf(const std::string& sentinel, const std::string& irrelevant,
                       const std::string& prefix) {
  SignatureRules rules;
  rules.sentinel = cantFail(RuleList::parse(sentinel, "sentinel.txt"));
  rules.irrelevant = cantFail(RuleList::parse(irrelevant, "irrelevant.txt"));
  rules.prefix = cantFail(RuleList::parse(prefix, "prefix.txt"));
  return rules;
}

SignatureInput stackOf(std::vector<std::string> functions) {
  SignatureInput input;
  for (const std::string& function : functions)
    input.frames.push_back({function, "app", 0x10, 0x1010});
  return input;
}

TEST(CrashSignature, SkipsIrrelevantTakesPrefixesStopsAtTheFirstOther) {
  SignatureRules rules = rulesOf("", "raise\nabort\n# a comment\n", "malloc\n_int_malloc\n");
  EXPECT_EQ(
      crashSignature(stackOf({"raise", "abort", "_int_malloc", "malloc", "make_list(int)", "main"}),
                     rules),
      "_int_malloc | malloc | make_list");
  EXPECT_EQ(crashSignature(stackOf({"crash_here()", "main"}), rules), "crash_here");
}

TEST(CrashSignature, StartsAtASentinel) {
  SignatureRules rules = rulesOf("_purecall\n", "", "");
  EXPECT_EQ(crashSignature(stackOf({"handler", "_purecall", "Widget::draw()", "main"}), rules),
            "_purecall | Widget::draw");
}

TEST(CrashSignature, PatternsMatchWholeNames) {
  SignatureRules rules = rulesOf("", "abort\n", "");
  EXPECT_EQ(crashSignature(stackOf({"abort_handler", "main"}), rules), "abort_handler");
  rules = rulesOf("", "__memcpy_.*\n", "");
  EXPECT_EQ(crashSignature(stackOf({"__memcpy_avx_unaligned", "copy"}), rules), "copy");
}

TEST(CrashSignature, SpecialForms) {
  SignatureRules rules = rulesOf("", "", "");
  EXPECT_EQ(crashSignature(SignatureInput{}, rules), "EMPTY: no frame data available");
  SignatureInput oom = stackOf({"grow"});
  oom.annotations["OOMAllocationSize"] = "4096";
  EXPECT_EQ(crashSignature(oom, rules), "OOM | small");
  oom.annotations["OOMAllocationSize"] = "104857600";
  EXPECT_EQ(crashSignature(oom, rules), "OOM | large | grow");
  SignatureInput aborted = stackOf({"check"});
  aborted.annotations["AbortMessage"] = "bad state\nsecond line";
  EXPECT_EQ(crashSignature(aborted, rules), "Abort | bad state second line | check");
}

TEST(CrashSignature, CutAt255BytesOnACharacterBoundary) {
  SignatureRules rules = rulesOf("", "", "f.*\n");
  std::vector<std::string> names;
  for (int i = 0; i < 30; ++i)
    names.push_back("f\xc3\xa9" + std::to_string(i) + "_long_function_name");
  std::string signature = crashSignature(stackOf(names), rules);
  EXPECT_LE(signature.size(), kMaxSignatureLength);
  EXPECT_NE(static_cast<unsigned char>(signature.back()) & 0xc0, 0x80u) << signature;
}

TEST(SignatureRules, BuiltInListsParseAndSignGlibcAborts) {
  const SignatureRules& rules = SignatureRules::builtIn();
  EXPECT_GT(rules.irrelevant.size(), 10u);
  EXPECT_GT(rules.prefix.size(), 10u);
  EXPECT_EQ(
      crashSignature(stackOf({"__pthread_kill_implementation", "raise", "abort",
                              "__assert_fail_base", "__assert_fail", "check_input(int)", "main"}),
                     rules),
      "check_input");
  EXPECT_EQ(crashSignature(stackOf({"_int_free", "free", "release(Node*)", "main"}), rules),
            "_int_free | free | release");
}

TEST(SignatureRules, ABadPatternNamesItsLine) {
  auto parsed = RuleList::parse("good\n(unclosed\n", "prefix.txt");
  ASSERT_FALSE(parsed);
  EXPECT_NE(llvm::toString(parsed.takeError()).find("prefix.txt:2:"), std::string::npos);
}

} // namespace
} // namespace dumpsyms
