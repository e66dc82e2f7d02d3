#include "symbol_file/text/text_writer.h"

#include <gtest/gtest.h>
#include <sstream>

namespace dumpsyms {
namespace {

Module sampleModule() {
  Module m;
  m.cpu = "x86_64";
  m.debug_id = DebugId("C0527AF13B9ED844A60C712E5B93F4080");
  m.code_id = CodeId("F17A52C09E3B44D8A60C712E5B93F408C21D6EA7");
  m.name = "libdemo.so";
  m.load_address = 0x1000;
  m.files = {"/build/demo/include/util.h", "/build/demo/src/main.cc"};
  m.inline_origins = {"demo::clamp(int, int, int)", "demo::square(int)"};
  Function compute;
  compute.name = "demo::compute(int)";
  compute.ranges = {{0x2130, 0x217a}};
  compute.inlines = {{0, 12, 1, 1, {{0x2138, 0x2141}}},
                     {0, 14, 1, 0, {{0x2145, 0x2151}, {0x2160, 0x2166}}},
                     {1, 7, 0, 1, {{0x2149, 0x214d}}}};
  compute.lines = {{0x2130, 8, 10, 1}, {0x2138, 9, 3, 0}, {0x2141, 4, 13, 1}};
  Function split;
  split.name = "demo::Widget::~Widget()";
  split.multiple = true;
  split.ranges = {{0x3c10, 0x3c28}, {0x5000, 0x5004}};
  split.lines = {{0x3c10, 0x18, 40, 1}, {0x5000, 4, 41, 1}};
  m.functions = {compute, split};
  m.publics = {{0x2000, "_init", false}, {0x2180, "demo_plugin_entry", true}};
  m.cfi_frames = {{{0x2130, 0x217a},
                   {{".ra", ".cfa -8 + ^"}, {".cfa", "$rsp 8 +"}},
                   {{0x2131, {{"$rbp", ".cfa -16 + ^"}, {".cfa", "$rsp 16 +"}}}}}};
  return m;
}

std::string write(const Module& m, WriteOptions options = {}) {
  std::ostringstream out;
  writeSymbolFile(m, options, out);
  return out.str();
}

TEST(TextWriter, WritesEveryRecordInOrder) {
  EXPECT_EQ(write(sampleModule()),
            "MODULE Linux x86_64 C0527AF13B9ED844A60C712E5B93F4080 libdemo.so\n"
            "INFO CODE_ID F17A52C09E3B44D8A60C712E5B93F408C21D6EA7\n"
            "FILE 0 /build/demo/include/util.h\n"
            "FILE 1 /build/demo/src/main.cc\n"
            "INLINE_ORIGIN 0 demo::clamp(int, int, int)\n"
            "INLINE_ORIGIN 1 demo::square(int)\n"
            "FUNC 1130 4a 0 demo::compute(int)\n"
            "INLINE 0 12 1 1 1138 9\n"
            "INLINE 0 14 1 0 1145 c 1160 6\n"
            "INLINE 1 7 0 1 1149 4\n"
            "1130 8 10 1\n"
            "1138 9 3 0\n"
            "1141 4 13 1\n"
            "FUNC m 2c10 18 0 demo::Widget::~Widget()\n"
            "2c10 18 40 1\n"
            "FUNC m 4000 4 0 demo::Widget::~Widget()\n"
            "4000 4 41 1\n"
            "PUBLIC 1000 0 _init\n"
            "PUBLIC m 1180 0 demo_plugin_entry\n"
            "STACK CFI INIT 1130 4a .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
            "STACK CFI 1131 $rbp: .cfa -16 + ^ .cfa: $rsp 16 +\n");
}

TEST(TextWriter, HeaderOnly) {
  WriteOptions options;
  options.header_only = true;
  EXPECT_EQ(write(sampleModule(), options),
            "MODULE Linux x86_64 C0527AF13B9ED844A60C712E5B93F4080 libdemo.so\n"
            "INFO CODE_ID F17A52C09E3B44D8A60C712E5B93F408C21D6EA7\n");
}

TEST(TextWriter, AbsoluteAddressesAndNoCfi) {
  WriteOptions options;
  options.absolute_addresses = true;
  options.include_cfi = false;
  std::string text = write(sampleModule(), options);
  EXPECT_NE(text.find("FUNC 2130 4a 0 demo::compute(int)\n"), std::string::npos);
  EXPECT_NE(text.find("PUBLIC 2000 0 _init\n"), std::string::npos);
  EXPECT_EQ(text.find("STACK"), std::string::npos);
}

TEST(TextWriter, InlinesFollowTheirFuncRange) {
  Module m = sampleModule();
  Function& split = m.functions[1];
  m.inline_origins.push_back("demo::helper()");
  split.inlines = {{0, 5, 1, 2, {{0x3c12, 0x3c14}}},
                   {1, 6, 1, 1, {{0x3c12, 0x3c13}}},
                   {0, 9, std::nullopt, 0, {{0x5000, 0x5002}}}};
  std::string text = write(m);
  EXPECT_NE(text.find("FUNC m 2c10 18 0 demo::Widget::~Widget()\n"
                      "INLINE 0 5 1 2 2c12 2\n"
                      "INLINE 1 6 1 1 2c12 1\n"
                      "2c10 18 40 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("FUNC m 4000 4 0 demo::Widget::~Widget()\n"
                      "INLINE 0 9 -1 0 4000 2\n"
                      "4000 4 41 1\n"),
            std::string::npos);
}

TEST(TextWriter, NamesTheProcessorCannotReadAreRepaired) {
  Module m = sampleModule();
  m.functions[0].name = "";
  m.publics[0].name = "bad\nname";
  std::string text = write(m);
  EXPECT_NE(text.find("FUNC 1130 4a 0 <name omitted>\n"), std::string::npos);
  EXPECT_NE(text.find("PUBLIC 1000 0 bad name\n"), std::string::npos);
}

TEST(TextWriter, StackWinRecords) {
  Module m;
  m.cpu = "x86";
  m.debug_id = DebugId("4FBDA58B5A1DF5A379E3CF19A235EA090");
  m.name = "linux-gate.so";
  m.stack_win = {{4, 0x400, 0x200, 3, 3, 0, 0, 0, 0, "", true}};
  EXPECT_EQ(write(m), "MODULE Linux x86 4FBDA58B5A1DF5A379E3CF19A235EA090 linux-gate.so\n"
                      "STACK WIN 4 400 200 3 3 0 0 0 0 0 1\n");
}

TEST(TextWriter, ThreadsWriteTheSameBytes) {
  // Enough functions for several batches of slices, some with two ranges
  // (two FUNC records apart), one with a name to repair.
  Module m = sampleModule();
  m.functions.clear();
  for (uint64_t i = 0; i < 20000; ++i) {
    Function f;
    f.name = i == 777 ? "" : "f" + std::to_string(i);
    uint64_t start = 0x10000 + i * 0x40;
    f.ranges = {{start, start + 0x20}};
    if (i % 5 == 0)
      f.ranges.push_back({0x900000 + i * 8, 0x900000 + i * 8 + 4});
    f.lines = {{start, 0x10, static_cast<uint32_t>(i), 0}, {start + 0x10, 0x10, 7, 1}};
    m.functions.push_back(std::move(f));
  }
  WriteOptions one;
  one.threads = 1;
  std::string expected = write(m, one);
  for (unsigned threads : {2u, 3u, 8u}) {
    WriteOptions many;
    many.threads = threads;
    EXPECT_EQ(write(m, many), expected) << threads << " threads";
  }
  RecordCounts counts;
  std::ostringstream out;
  WriteOptions three;
  three.threads = 3;
  counts = writeSymbolFile(m, three, out);
  EXPECT_EQ(counts.functions, 24000u);
  EXPECT_EQ(counts.lines, 40000u);
}

} // namespace
} // namespace dumpsyms
