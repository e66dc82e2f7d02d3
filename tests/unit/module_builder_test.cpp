#include "symbol_file/model/module_builder.h"
#include "tests/support/module_values.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

using test::function;

Module finish(ModuleBuilder& builder, BuildOptions options = {}) {
  BuildStats stats;
  return std::move(builder).finish(options, stats);
}

TEST(ModuleBuilder, InternsFilesAndNumbersThemInByteOrder) {
  ModuleBuilder builder({});
  UnitSymbols a;
  a.files = {"/src/z.c", "/src/a.c", "/src/unused.c"};
  a.functions = {function("f", {{0x100, 0x110}}, {{0x100, 8, 1, 0}, {0x108, 8, 2, 1}})};
  UnitSymbols b;
  b.files = {"/src/a.c"};
  b.functions = {function("g", {{0x200, 0x210}}, {{0x200, 16, 3, 0}})};
  builder.addUnit(std::move(a));
  builder.addUnit(std::move(b));
  Module m = finish(builder);
  ASSERT_EQ(m.files, (std::vector<std::string>{"/src/a.c", "/src/z.c"}));
  EXPECT_EQ(m.functions[0].lines[0].file, 1u);
  EXPECT_EQ(m.functions[0].lines[1].file, 0u);
  EXPECT_EQ(m.functions[1].lines[0].file, 0u);
}

TEST(ModuleBuilder, OneFunctionPerAddressAndNoOverlap) {
  ModuleBuilder builder({});
  UnitSymbols unit;
  unit.files = {"f.c"};
  unit.functions = {function("zeta", {{0x100, 0x140}}), function("alpha", {{0x100, 0x140}}),
                    function("inner", {{0x120, 0x160}}, {{0x120, 0x40, 7, 0}})};
  builder.addUnit(std::move(unit));
  BuildOptions options;
  options.mark_multiple = true;
  Module m = finish(builder, options);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].name, "alpha");
  EXPECT_TRUE(m.functions[0].multiple);
  EXPECT_EQ(m.functions[1].ranges, (std::vector<AddressRange>{{0x140, 0x160}}));
  ASSERT_EQ(m.functions[1].lines.size(), 1u);
  EXPECT_EQ(m.functions[1].lines[0].address, 0x140u);
  EXPECT_EQ(m.functions[1].lines[0].size, 0x20u);
}

TEST(ModuleBuilder, DropsCodeOutsideLoadedSegmentsAndAtZero) {
  ModuleBuilder builder({});
  builder.setLoadedRanges({{0x1000, 0x2000}});
  UnitSymbols unit;
  unit.functions = {function("kept", {{0x1100, 0x1200}, {0, 0x10}}),
                    function("gone", {{0x3000, 0x3010}})};
  builder.addUnit(std::move(unit));
  Module m = finish(builder);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].ranges, (std::vector<AddressRange>{{0x1100, 0x1200}}));
}

TEST(ModuleBuilder, PublicsOnlyForUncoveredCodeOnePerAddress) {
  ModuleBuilder builder({});
  UnitSymbols unit;
  unit.functions = {function("f", {{0x100, 0x140}, {0x400, 0x420}})};
  builder.addUnit(std::move(unit));
  builder.addCodeSymbol({0x100, 0x40, "f"});
  builder.addCodeSymbol({0x400, 0x20, "f.cold"}); // a secondary range: covered
  builder.addCodeSymbol({0x200, 0x10, "first"});
  builder.addCodeSymbol({0x200, 0x10, "alias"});
  builder.addCodeSymbol({0x300, 0x10, ""});
  builder.addCodeSymbol({0, 0x10, "at_zero"});
  BuildOptions options;
  options.mark_multiple = true;
  Module m = finish(builder, options);
  ASSERT_EQ(m.publics.size(), 1u);
  EXPECT_EQ(m.publics[0].name, "first");
  EXPECT_EQ(m.publics[0].address, 0x200u);
  EXPECT_TRUE(m.publics[0].multiple);
}

TEST(ModuleBuilder, LineRowsWithoutAFunctionGetTheSymbolsName) {
  ModuleBuilder builder({});
  UnitSymbols unit;
  unit.files = {"start.S"};
  unit.unclaimed_lines = {{0x500, 4, 10, 0}, {0x504, 4, 11, 0}, {0x900, 4, 1, 0}};
  builder.addUnit(std::move(unit));
  builder.addCodeSymbol({0x500, 0x10, "asm_entry"});
  Module m = finish(builder);
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].name, "asm_entry");
  EXPECT_EQ(m.functions[0].ranges, (std::vector<AddressRange>{{0x500, 0x510}}));
  EXPECT_EQ(m.functions[0].lines.size(), 2u);
  EXPECT_TRUE(m.publics.empty());
}

TEST(ModuleBuilder, CfiPrefersEhFrameAndNeverOverlaps) {
  ModuleBuilder builder({});
  auto frame = [](uint64_t start, uint64_t end, std::string cfa) {
    CfiFrame f;
    f.range = {start, end};
    f.initial = {{".cfa", std::move(cfa)}, {".ra", ".cfa -8 + ^"}};
    f.changes = {{start + 1, {{".cfa", "$rsp 16 +"}}}, {end + 5, {{".cfa", "$rsp 24 +"}}}};
    return f;
  };
  builder.addCfiFrame(frame(0x100, 0x140, "$rsp 8 + debug"), CfiSource::DebugFrame);
  builder.addCfiFrame(frame(0x100, 0x140, "$rsp 8 +"), CfiSource::EhFrame);
  builder.addCfiFrame(frame(0x200, 0x240, "$rsp 8 +"), CfiSource::DebugFrame);
  Module m = finish(builder);
  ASSERT_EQ(m.cfi_frames.size(), 2u);
  EXPECT_EQ(m.cfi_frames[0].initial[0].expression, "$rsp 8 +");
  EXPECT_EQ(m.cfi_frames[1].range.start, 0x200u);
  EXPECT_EQ(m.cfi_frames[0].changes.size(), 1u); // the change past the end is gone
}

TEST(ModuleBuilder, InlineOriginsAreMergedByName) {
  ModuleBuilder builder({});
  for (int i = 0; i < 2; ++i) {
    UnitSymbols unit;
    unit.files = {"a.h"};
    unit.origins = {"helper()"};
    Function f = function("f" + std::to_string(i), {{0x100u + 0x100 * i, 0x180u + 0x100 * i}});
    f.inlines = {{0, 3, 0, 0, {{0x110u + 0x100 * i, 0x120u + 0x100 * i}}}};
    unit.functions = {f};
    builder.addUnit(std::move(unit));
  }
  BuildOptions options;
  options.keep_inlines = true;
  Module m = finish(builder, options);
  ASSERT_EQ(m.inline_origins, (std::vector<std::string>{"helper()"}));
  EXPECT_EQ(m.functions[1].inlines[0].origin, 0u);
  EXPECT_EQ(m.functions[1].inlines[0].call_file, 0u);
}

TEST(ModuleBuilder, ThreadsBuildTheSameModule) {
  // Many functions, overlapping and duplicated, with lines to clip: one
  // thread or several give the same module and the same counts.
  auto build = [](unsigned threads, BuildStats& stats) {
    ModuleBuilder builder({});
    for (int u = 0; u < 4; ++u) {
      UnitSymbols unit;
      unit.files = {"/src/u" + std::to_string(u) + ".c"};
      for (uint64_t i = 0; i < 3000; ++i) {
        uint64_t start = 0x1000 + i * 0x30 + u * 8;
        unit.functions.push_back(
            function("f" + std::to_string(i) + "_" + std::to_string(u), {{start, start + 0x28}},
                     {{start, 0x10, static_cast<uint32_t>(i), 0}, {start + 0x8, 0x30, 2, 0}}));
      }
      builder.addUnit(std::move(unit));
    }
    BuildOptions options;
    options.threads = threads;
    return std::move(builder).finish(options, stats);
  };
  BuildStats one_stats;
  Module one = build(1, one_stats);
  for (unsigned threads : {2u, 5u}) {
    BuildStats stats;
    Module many = build(threads, stats);
    ASSERT_EQ(many.functions.size(), one.functions.size());
    for (size_t i = 0; i < one.functions.size(); ++i) {
      EXPECT_EQ(many.functions[i].name, one.functions[i].name);
      EXPECT_EQ(many.functions[i].ranges, one.functions[i].ranges);
      ASSERT_EQ(many.functions[i].lines.size(), one.functions[i].lines.size());
      for (size_t k = 0; k < one.functions[i].lines.size(); ++k) {
        EXPECT_EQ(many.functions[i].lines[k].address, one.functions[i].lines[k].address);
        EXPECT_EQ(many.functions[i].lines[k].size, one.functions[i].lines[k].size);
      }
    }
    EXPECT_EQ(stats.lines_dropped, one_stats.lines_dropped);
    EXPECT_EQ(stats.function_ranges_trimmed, one_stats.function_ranges_trimmed);
  }
  EXPECT_GT(one_stats.lines_dropped, 0u);
}

} // namespace
} // namespace dumpsyms
