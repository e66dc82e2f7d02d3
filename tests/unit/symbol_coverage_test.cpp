// computeCoverage and coverageBuckets over hand-built modules, their sums
// against computeStats; validateSymbolText on a damaged file.
#include "symbol_file/analysis/symbol_coverage.h"
#include "symbol_file/analysis/symbol_stats.h"
#include "symbol_file/analysis/symbol_validate.h"
#include "tests/support/module_values.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

using K = CoverageKind;

using test::function;

CfiFrame cfi(uint64_t start, uint64_t end) {
  CfiFrame frame;
  frame.range = {start, end};
  return frame;
}

// a: half its bytes in line records; a PUBLIC up to b; b without lines; a
// gap; c all lines. Two overlapping CFI ranges over a and the PUBLIC, one over c.
Module sample() {
  Module m;
  m.functions = {function("a", {{0x1000, 0x1040}}, {{0x1000, 0x10, 1, 0}, {0x1020, 0x10, 2, 0}}),
                 function("b", {{0x1080, 0x10a0}}),
                 function("c", {{0x1100, 0x1110}}, {{0x1100, 0x10, 3, 0}})};
  m.publics = {{0x1040, "after_a"}};
  m.cfi_frames = {cfi(0x1000, 0x1030), cfi(0x1020, 0x1050), cfi(0x1100, 0x1110)};
  return m;
}

void expectSumsMatchStats(const Module& m, const SymbolCoverage& c) {
  SymbolStats stats = computeStats(m);
  EXPECT_EQ(c.with_lines + c.without_lines, stats.function_bytes);
  EXPECT_EQ(c.cfi_bytes, stats.cfi_bytes);
  EXPECT_LE(c.with_lines, stats.line_bytes);
  EXPECT_EQ(c.with_lines + c.without_lines + c.public_only + c.nothing, c.end - c.start);
}

TEST(SymbolCoverage, RunsOfEachKind) {
  Module m = sample();
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.start, 0x1000u);
  EXPECT_EQ(c.end, 0x1110u);
  std::vector<std::tuple<uint64_t, uint64_t, K>> runs;
  for (const CoverageRun& r : c.runs)
    runs.emplace_back(r.start, r.end, r.kind);
  std::vector<std::tuple<uint64_t, uint64_t, K>> want{
      {0x1000, 0x1010, K::FunctionWithLines}, {0x1010, 0x1020, K::FunctionWithoutLines},
      {0x1020, 0x1030, K::FunctionWithLines}, {0x1030, 0x1040, K::FunctionWithoutLines},
      {0x1040, 0x1080, K::PublicOnly},        {0x1080, 0x10a0, K::FunctionWithoutLines},
      {0x10a0, 0x1100, K::Nothing},           {0x1100, 0x1110, K::FunctionWithLines}};
  EXPECT_EQ(runs, want);
  EXPECT_EQ(c.with_lines, 0x30u);
  EXPECT_EQ(c.without_lines, 0x40u);
  EXPECT_EQ(c.public_only, 0x40u);
  EXPECT_EQ(c.nothing, 0x60u);
  expectSumsMatchStats(m, c);
}

TEST(SymbolCoverage, OverlappingCfiCountsOnce) {
  Module m = sample();
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.cfi_bytes, 0x60u);
  ASSERT_EQ(c.cfi_runs.size(), 3u);
  EXPECT_EQ(c.cfi_runs[0].first.start, 0x1000u);
  EXPECT_EQ(c.cfi_runs[0].first.end, 0x1050u);
  EXPECT_TRUE(c.cfi_runs[0].second);
  EXPECT_EQ(c.cfi_runs[1].first.end, 0x1100u);
  EXPECT_FALSE(c.cfi_runs[1].second);
  EXPECT_TRUE(c.cfi_runs[2].second);
  EXPECT_EQ(c.cfi_runs[2].first.end, 0x1110u);
}

TEST(SymbolCoverage, LargestWithoutCfiOrLines) {
  Module m = sample();
  m.functions.push_back(function("d", {{0x2000, 0x2020}, {0x3000, 0x3010}}));
  m.functions.push_back(function("e", {{0x1fd0, 0x2000}}));
  SymbolCoverage c = computeCoverage(m, 2);
  // d (0x30 in two ranges) and e (0x30) tie: the lower address first; b is cut.
  ASSERT_EQ(c.largest_without_cfi.size(), 2u);
  EXPECT_EQ(c.largest_without_cfi[0].name, "e");
  EXPECT_EQ(c.largest_without_cfi[1].name, "d");
  EXPECT_EQ(c.largest_without_cfi[1].size, 0x30u);
  EXPECT_EQ(c.largest_without_cfi[1].address, 0x2000u);
  ASSERT_EQ(c.largest_without_lines.size(), 2u);
  EXPECT_EQ(c.largest_without_lines[0].name, "e");
  SymbolCoverage all = computeCoverage(m);
  ASSERT_EQ(all.largest_without_lines.size(), 3u);
  EXPECT_EQ(all.largest_without_lines[2].name, "b");
  expectSumsMatchStats(m, all);
}

TEST(SymbolCoverage, OverlappingFunctionsCountEachByteOnce) {
  Module m;
  // f's second line record lies outside f: it covers none of g's bytes.
  m.functions = {function("f", {{0x0, 0x20}}, {{0x0, 0x20, 1, 0}, {0x20, 0x8, 2, 0}}),
                 function("g", {{0x10, 0x30}})};
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.with_lines, 0x20u);
  EXPECT_EQ(c.without_lines, 0x10u);
  SymbolStats stats = computeStats(m);
  EXPECT_EQ(stats.function_bytes, 0x30u);
  EXPECT_EQ(stats.line_bytes, 0x28u); // every line record, inside its FUNC or not
  expectSumsMatchStats(m, c);
}

TEST(SymbolCoverage, PublicsReachTheNextSymbol) {
  Module m;
  m.publics = {{0x10, "one"}, {0x20, "two"}, {0x20, "two_again"}};
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.start, 0x10u);
  EXPECT_EQ(c.end, 0x21u); // the highest one: one byte
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].kind, K::PublicOnly);
  EXPECT_EQ(c.public_only, 0x11u);

  // A PUBLIC inside a FUNC: the FUNC's bytes stay the FUNC's, the PUBLIC
  // covers from there to the next FUNC; the last one to the records' end.
  m.publics = {{0x1010, "inside"}, {0x3000, "last"}};
  m.functions = {function("f", {{0x1000, 0x1020}}), function("g", {{0x2000, 0x2010}})};
  m.cfi_frames = {cfi(0x3000, 0x3100)};
  c = computeCoverage(m);
  EXPECT_EQ(c.without_lines, 0x30u);
  EXPECT_EQ(c.public_only, (0x2000u - 0x1020u) + 0x100u);
  EXPECT_EQ(c.nothing, 0x1000u - 0x10u);
  EXPECT_EQ(c.end, 0x3100u);
  expectSumsMatchStats(m, c);
}

TEST(SymbolCoverage, StackWinOnly) {
  Module m;
  StackWinRecord win;
  win.address = 0x500;
  win.code_size = 0x40;
  m.stack_win = {win};
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.start, 0x500u);
  EXPECT_EQ(c.end, 0x540u);
  ASSERT_EQ(c.runs.size(), 1u);
  EXPECT_EQ(c.runs[0].kind, K::Nothing);
  EXPECT_EQ(c.nothing, 0x40u);
  EXPECT_EQ(c.cfi_bytes, 0u);
  ASSERT_EQ(c.cfi_runs.size(), 1u);
  EXPECT_FALSE(c.cfi_runs[0].second);
  // A FUNC under STACK WIN has unwind information.
  m.functions = {function("f", {{0x500, 0x510}})};
  c = computeCoverage(m);
  // The STACK WIN range reaches past the FUNC: nothing there.
  ASSERT_EQ(c.runs.size(), 2u);
  EXPECT_EQ(c.runs[0].kind, K::FunctionWithoutLines);
  EXPECT_EQ(c.runs[1].start, 0x510u);
  EXPECT_EQ(c.runs[1].end, 0x540u);
  EXPECT_EQ(c.runs[1].kind, K::Nothing);
  EXPECT_TRUE(c.largest_without_cfi.empty());
  EXPECT_EQ(c.largest_without_lines.size(), 1u);
  expectSumsMatchStats(m, c);
}

TEST(SymbolCoverage, EmptyModule) {
  Module m;
  SymbolCoverage c = computeCoverage(m);
  EXPECT_EQ(c.start, 0u);
  EXPECT_EQ(c.end, 0u);
  EXPECT_TRUE(c.runs.empty());
  EXPECT_TRUE(c.cfi_runs.empty());
  EXPECT_EQ(c.with_lines + c.without_lines + c.public_only + c.nothing + c.cfi_bytes, 0u);
  EXPECT_TRUE(coverageBuckets(c.runs, 100).empty());
}

TEST(SymbolCoverage, BucketsTakeTheMajorityKind) {
  std::vector<CoverageRun> runs{{0, 10, K::FunctionWithLines},
                                {10, 100, K::Nothing},
                                {100, 106, K::PublicOnly},
                                {106, 110, K::FunctionWithoutLines}};
  std::vector<CoverageRun> b = coverageBuckets(runs, 11);
  ASSERT_EQ(b.size(), 11u);
  EXPECT_EQ(b[0].kind, K::FunctionWithLines);
  for (size_t i = 1; i < 10; ++i) {
    EXPECT_EQ(b[i].kind, K::Nothing) << i;
    EXPECT_EQ(b[i].end - b[i].start, 10u);
  }
  EXPECT_EQ(b[10].kind, K::PublicOnly);
  EXPECT_EQ(b[10].end, 110u);

  // Equal widths, the last shorter; never more buckets than asked.
  b = coverageBuckets(runs, 3);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].end, 37u);
  EXPECT_EQ(b[2].start, 74u);
  EXPECT_EQ(b[2].end, 110u);
  EXPECT_EQ(b[0].kind, K::Nothing);
  b = coverageBuckets(runs, 1000);
  EXPECT_EQ(b.size(), 110u);
  EXPECT_EQ(b[105].kind, K::PublicOnly);
  EXPECT_EQ(b[106].kind, K::FunctionWithoutLines);

  // The sample's runs: a tie of lines and no lines goes to lines.
  b = coverageBuckets(computeCoverage(sample()).runs, 4);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].kind, K::FunctionWithLines);
  EXPECT_EQ(b[1].kind, K::PublicOnly);
  EXPECT_EQ(b[3].end, 0x1110u);
}

TEST(SymbolValidate, DamagedFile) {
  std::string text = "FILE 0 a.c\nFUNC zz 10 0 main\nPUBLIC 10 0 start\n";
  text += std::string("\0", 1);
  std::vector<ValidationProblem> problems = validateSymbolText(text);
  ASSERT_GE(problems.size(), 3u);
  bool bad_func = false;
  for (const ValidationProblem& p : problems)
    bad_func = bad_func || p.line == 2;
  EXPECT_TRUE(bad_func);
  const ValidationProblem& module = problems[problems.size() - 2];
  EXPECT_EQ(module.line, 1u);
  EXPECT_NE(module.message.find("MODULE"), std::string::npos);
  EXPECT_EQ(problems.back().line, 0u);
  EXPECT_NE(problems.back().message.find("NUL"), std::string::npos);

  EXPECT_TRUE(validateSymbolText("MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 demo\n"
                                 "FILE 0 a.c\nFUNC 1000 10 0 main\n1000 10 1 0\n")
                  .empty());
}

} // namespace
} // namespace dumpsyms
