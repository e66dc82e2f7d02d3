// The limits of common/limits/input_limits.h, each hit on purpose: DIE trees and
// inlined calls nested past their bound, a compressed section and a unit
// that claim 2^60 bytes, an oversized .sym line, JSON nested too deep, an
// endless line of crash text, a core whose notes claim absurd sizes. Each
// must end in one clear message naming the file and the limit, without a
// crash and without allocating what the input claims.
#include "common/limits/bounded_json.h"
#include "common/limits/input_limits.h"
#include "dump/flows/dump_module.h"
#include "symbol_file/text/text_reader.h"
#include "tests/support/byte_writer.h"
#include "tests/support/elf_builder.h"
#include "tests/support/whole_dump_options.h"
#include "walk/core/core_file.h"
#include "walk/symbolize/line_reader.h"

#include <fstream>
#include <gtest/gtest.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Support/FileSystem.h>
#include <sstream>

namespace dumpsyms {
namespace {

using namespace llvm::dwarf;
using test_support::ElfSection;

using Bytes = test_support::ByteWriter<std::vector<uint8_t>>;

// Abbreviation codes of the DWARF 4 units built below.
enum Abbrev : uint8_t {
  kUnit = 1,      // compile_unit, children: name, language
  kNamespace,     // namespace, children: name
  kFunction,      // subprogram, children: name, low_pc, high_pc (data4)
  kInlined,       // inlined_subroutine, children: abstract_origin, low_pc, high_pc
  kDeclared,      // subprogram, no children: name (an inlined call's origin)
  kClass,         // class_type, children: name
  kNamelessScope, // lexical_block, children (transparent)
};

std::vector<uint8_t> abbreviations() {
  Bytes b;
  auto entry = [&](Abbrev code, Tag tag, bool children,
                   std::initializer_list<std::pair<Attribute, Form>> attributes) {
    b.uleb(code).uleb(tag).u8(children ? DW_CHILDREN_yes : DW_CHILDREN_no);
    for (auto [attribute, form] : attributes)
      b.uleb(attribute).uleb(form);
    b.u8(0).u8(0);
  };
  entry(kUnit, DW_TAG_compile_unit, true,
        {{DW_AT_name, DW_FORM_string}, {DW_AT_language, DW_FORM_data2}});
  entry(kNamespace, DW_TAG_namespace, true, {{DW_AT_name, DW_FORM_string}});
  entry(
      kFunction, DW_TAG_subprogram, true,
      {{DW_AT_name, DW_FORM_string}, {DW_AT_low_pc, DW_FORM_addr}, {DW_AT_high_pc, DW_FORM_data4}});
  entry(kInlined, DW_TAG_inlined_subroutine, true,
        {{DW_AT_abstract_origin, DW_FORM_ref4},
         {DW_AT_low_pc, DW_FORM_addr},
         {DW_AT_high_pc, DW_FORM_data4}});
  entry(kDeclared, DW_TAG_subprogram, false, {{DW_AT_name, DW_FORM_string}});
  entry(kClass, DW_TAG_class_type, true, {{DW_AT_name, DW_FORM_string}});
  entry(kNamelessScope, DW_TAG_lexical_block, true, {});
  b.u8(0);
  return b.data();
}

// A DWARF 4 compile unit (C++, 8-byte addresses) around `dies`, which
// start at unit offset 11 + 1 + name + 2.
std::vector<uint8_t> unit(const std::vector<uint8_t>& dies) {
  Bytes body;
  body.u16(4).u32(0).u8(8);
  body.uleb(kUnit).str("u.cc").u16(DW_LANG_C_plus_plus);
  body.raw(dies).u8(0);
  return Bytes().u32(body.size()).raw(body.data()).data();
}
constexpr uint32_t kFirstDie = 4 + 2 + 4 + 1 + 1 + 5 + 2;

// Code addresses inside the .text elfAround places first (file offset 0x80).
constexpr uint64_t kCode = 0x100;

struct DumpResult {
  std::optional<Module> module;
  std::string error;
  std::vector<std::string> warnings;
  std::string path;
};

// Dumps an ELF made of .text and the given DWARF sections, with -d.
DumpResult dump(std::vector<ElfSection> dwarf) {
  std::vector<ElfSection> sections;
  sections.push_back({".text", llvm::ELF::SHT_PROGBITS,
                      llvm::ELF::SHF_ALLOC | llvm::ELF::SHF_EXECINSTR,
                      std::vector<uint8_t>(4096, 0xc3)});
  for (ElfSection& section : dwarf)
    sections.push_back(std::move(section));
  std::vector<uint8_t> elf = test_support::elfAround(std::move(sections));
  llvm::SmallString<128> path;
  EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("limits", "elf", path));
  {
    std::ofstream out(std::string(path), std::ios::binary);
    out.write(reinterpret_cast<const char*>(elf.data()), std::streamsize(elf.size()));
  }
  Options options = test_support::wholeDumpOptions(std::string(path));
  Diagnostics diagnostics;
  DumpResult result;
  result.path = std::string(path);
  auto module = dumpModule(options, diagnostics);
  if (module)
    result.module = std::move(*module);
  else
    result.error = llvm::toString(module.takeError());
  result.warnings = diagnostics.warnings();
  llvm::sys::fs::remove(path);
  return result;
}

DumpResult dumpUnit(const std::vector<uint8_t>& dies) {
  return dump({{".debug_info", llvm::ELF::SHT_PROGBITS, 0, unit(dies)},
               {".debug_abbrev", llvm::ELF::SHT_PROGBITS, 0, abbreviations()}});
}

// The one warning that mentions `text`, or "".
std::string warningWith(const DumpResult& result, const std::string& text) {
  for (const std::string& warning : result.warnings)
    if (warning.find(text) != std::string::npos)
      return warning;
  return "";
}

const Function* functionNamed(const Module& module, llvm::StringRef suffix) {
  for (const Function& function : module.functions)
    if (llvm::StringRef(function.name).ends_with(suffix))
      return &function;
  return nullptr;
}

TEST(Limits, ScopesNestedPastTheLimitCutTheNameWithAWarning) {
  // 300 nested namespaces around one function.
  const uint32_t levels = limits::kMaxScopeDepth + 44;
  Bytes dies;
  for (uint32_t i = 0; i < levels; ++i)
    dies.uleb(kNamespace).str("n");
  dies.uleb(kFunction).str("f").u64(kCode).u32(0x10).u8(0);
  for (uint32_t i = 0; i < levels; ++i)
    dies.u8(0);
  DumpResult result = dumpUnit(dies.data());
  ASSERT_TRUE(result.module) << result.error;
  const Function* f = functionNamed(*result.module, "::f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->name.size(), 3 * limits::kMaxScopeDepth + 1); // "n::" 256 times, then "f"
  std::string warning = warningWith(result, "over the limit of 256 levels");
  EXPECT_NE(warning.find(result.path), std::string::npos) << warning;
  EXPECT_NE(warning.find("nesting of the scopes"), std::string::npos) << warning;
}

TEST(Limits, LocalClassesNestedPastTheLimitDoNotExhaustTheStack) {
  // f { class C { f { class C { ... f [code] } } } }: naming the innermost
  // method names each function around it first, which recursed once per
  // level before the bound (20000 levels overflowed the stack).
  const uint32_t levels = 20000;
  Bytes dies;
  for (uint32_t i = 0; i < levels; ++i)
    dies.uleb(kFunction)
        .str("f")
        .u64(kCode + 0x200)
        .u32(0) // no code: only the innermost one is a FUNC
        .uleb(kClass)
        .str("C");
  dies.uleb(kFunction).str("f").u64(kCode).u32(0x10).u8(0);
  for (uint32_t i = 0; i < 2 * levels; ++i)
    dies.u8(0);
  DumpResult result = dumpUnit(dies.data());
  ASSERT_TRUE(result.module) << result.error;
  ASSERT_EQ(result.module->functions.size(), 1u);
  EXPECT_NE(warningWith(result, "over the limit of 256 levels"), "");
}

TEST(Limits, InlinedCallsNestedPastTheLimitAreLeftOutWithAWarning) {
  const uint32_t levels = limits::kMaxInlineDepth + 44;
  Bytes dies;
  uint32_t origin = kFirstDie;
  dies.uleb(kDeclared).str("g");
  dies.uleb(kFunction).str("f").u64(kCode).u32(0x10);
  for (uint32_t i = 0; i < levels; ++i)
    dies.uleb(kInlined).u32(origin).u64(kCode).u32(0x10);
  for (uint32_t i = 0; i < levels + 1; ++i)
    dies.u8(0);
  DumpResult result = dumpUnit(dies.data());
  ASSERT_TRUE(result.module) << result.error;
  const Function* f = functionNamed(*result.module, "f");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->inlines.size(), limits::kMaxInlineDepth);
  EXPECT_EQ(f->inlines.back().depth, limits::kMaxInlineDepth - 1);
  std::string warning = warningWith(result, "nesting of its inlined calls");
  EXPECT_NE(warning.find("over the limit of 256 levels"), std::string::npos) << warning;
  EXPECT_NE(warning.find(result.path), std::string::npos) << warning;
}

TEST(Limits, LexicalBlocksNestedDeepCostNoRecursion) {
  // Lexical blocks are transparent to inlined calls: 100000 of them, nested,
  // around one inlined call (a stack of pending DIEs, not the C++ stack).
  const uint32_t levels = 100000;
  Bytes dies;
  dies.uleb(kDeclared).str("g");
  dies.uleb(kFunction).str("f").u64(kCode).u32(0x10);
  for (uint32_t i = 0; i < levels; ++i)
    dies.uleb(kNamelessScope);
  dies.uleb(kInlined).u32(kFirstDie).u64(kCode).u32(0x8).u8(0);
  for (uint32_t i = 0; i < levels + 1; ++i)
    dies.u8(0);
  DumpResult result = dumpUnit(dies.data());
  ASSERT_TRUE(result.module) << result.error;
  const Function* f = functionNamed(*result.module, "f");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->inlines.size(), 1u);
}

TEST(Limits, CompressedSectionClaimingTwoToTheSixtyBytesIsRefused) {
  // Elf64_Chdr: zlib, 2^60 bytes once inflated; then a few bytes of "data".
  Bytes info;
  info.u32(llvm::ELF::ELFCOMPRESS_ZLIB).u32(0).u64(uint64_t(1) << 60).u64(1);
  info.raw({0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01});
  DumpResult result =
      dump({{".debug_info", llvm::ELF::SHT_PROGBITS, llvm::ELF::SHF_COMPRESSED, info.data()},
            {".debug_abbrev", llvm::ELF::SHT_PROGBITS, 0, abbreviations()}});
  ASSERT_TRUE(result.module) << result.error;
  std::string warning = warningWith(result, "claims to inflate");
  EXPECT_NE(warning.find("'.debug_info'"), std::string::npos) << warning;
  EXPECT_NE(warning.find("1152921504606846976"), std::string::npos) << warning;
  EXPECT_NE(warning.find("over the limit of 65536 times its compressed size"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find(result.path), std::string::npos) << warning;
}

TEST(Limits, UnitLengthOfTwoToTheSixtyIsAnErrorNotAnAllocation) {
  // A DWARF64 unit whose length says 2^60 bytes.
  Bytes info;
  info.u32(0xffffffff).u64(uint64_t(1) << 60).u16(4).u64(0).u8(8).uleb(kUnit).str("u").u16(4);
  DumpResult result = dump({{".debug_info", llvm::ELF::SHT_PROGBITS, 0, info.data()},
                            {".debug_abbrev", llvm::ELF::SHT_PROGBITS, 0, abbreviations()}});
  ASSERT_TRUE(result.module) << result.error;
  std::string warning = warningWith(result, "impossible length");
  EXPECT_NE(warning.find("1152921504606846976 bytes"), std::string::npos) << warning;
  EXPECT_NE(warning.find(result.path), std::string::npos) << warning;
}

TEST(Limits, SymbolFileLineOverTheLimitIsAProblemNotARecord) {
  std::string text = "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 a\n"
                     "FUNC 1000 10 0 " +
                     std::string(limits::kMaxSymbolFileLine, 'x') + "\nFUNC 2000 10 0 g\n";
  ParsedSymbolFile parsed = readSymbolFile(text);
  ASSERT_EQ(parsed.problems.size(), 1u);
  EXPECT_EQ(parsed.problems[0].line, 2u);
  EXPECT_EQ(parsed.problems[0].message, "the line is over the limit of 16777216 bytes: not read");
  ASSERT_EQ(parsed.module.functions.size(), 1u);
  EXPECT_EQ(parsed.module.functions[0].name, "g");
}

// Found by the sym_parser campaign (timeout): a 765-byte file whose
// INLINE_ORIGIN id 55555555 grew the table to 55 million names, which the
// writer then wrote out.
TEST(Limits, SymbolFileIdsAreBoundedByTheFileSize) {
  std::string text = "MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 a\n"
                     "FILE 0 a.c\n"
                     "FILE 40 sparse.c\n"
                     "INLINE_ORIGIN 55555555 f\n"
                     "FILE 100000001 b.c\n";
  ParsedSymbolFile parsed = readSymbolFile(text);
  ASSERT_EQ(parsed.problems.size(), 2u);
  EXPECT_EQ(parsed.problems[0].line, 4u);
  EXPECT_EQ(parsed.problems[0].message,
            "INLINE_ORIGIN id 55555555 is implausibly large (the file holds 128 bytes)");
  EXPECT_EQ(parsed.problems[1].line, 5u);
  EXPECT_TRUE(parsed.module.inline_origins.empty());
  ASSERT_EQ(parsed.module.files.size(), 41u); // a gap below the file's size is kept
  EXPECT_EQ(parsed.module.files[40], "sparse.c");
}

TEST(Limits, JsonNestedPastTheLimitIsRefusedBeforeParsing) {
  std::string deep(100000, '[');
  auto parsed = parseBoundedJson(deep);
  ASSERT_FALSE(parsed);
  EXPECT_EQ(llvm::toString(parsed.takeError()),
            "the JSON's nesting is over the limit of 64 levels");
  // Brackets inside strings do not count; 64 levels are read.
  std::string at_limit = std::string(limits::kMaxJsonDepth, '[') + "\"[[[[\\\"[[\"" +
                         std::string(limits::kMaxJsonDepth, ']');
  EXPECT_EQ(jsonNestingDepth(at_limit), limits::kMaxJsonDepth);
  auto read = parseBoundedJson(at_limit);
  EXPECT_TRUE(bool(read)) << llvm::toString(read.takeError());
}

TEST(Limits, CrashTextLineOverTheLimitIsSkippedWithoutKeepingIt) {
  std::istringstream in("a\r\n" + std::string(limits::kMaxCrashTextLine + 1, 'x') + "\nb");
  std::string line;
  EXPECT_EQ(readBoundedLine(in, limits::kMaxCrashTextLine, line), LineRead::Line);
  EXPECT_EQ(line, "a");
  EXPECT_EQ(readBoundedLine(in, limits::kMaxCrashTextLine, line), LineRead::TooLong);
  EXPECT_LE(line.capacity(), limits::kMaxCrashTextLine + 64);
  EXPECT_EQ(readBoundedLine(in, limits::kMaxCrashTextLine, line), LineRead::Line);
  EXPECT_EQ(line, "b");
  EXPECT_EQ(readBoundedLine(in, limits::kMaxCrashTextLine, line), LineRead::End);
}

// An x86_64 ELF core with one PT_NOTE segment holding `notes`.
std::unique_ptr<llvm::MemoryBuffer> coreWithNotes(const std::vector<uint8_t>& notes) {
  Bytes core;
  core.raw({0x7f, 'E', 'L', 'F', 2, 1, 1}).raw(std::vector<uint8_t>(9, 0));
  core.u16(llvm::ELF::ET_CORE).u16(llvm::ELF::EM_X86_64).u32(1).u64(0).u64(64).u64(0).u32(0);
  core.u16(64).u16(56).u16(1).u16(64).u16(0).u16(0);
  core.u32(llvm::ELF::PT_NOTE).u32(0).u64(120).u64(0).u64(0).u64(notes.size()).u64(0).u64(4);
  core.raw(notes);
  const auto& bytes = core.data();
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

TEST(Limits, CoreNoteClaimingAbsurdSizesIsAClearError) {
  // A note whose descriptor claims 4 GiB in a 24-byte segment.
  Bytes notes;
  notes.u32(5).u32(0xfffffff0).u32(llvm::ELF::NT_PRSTATUS).str("CORE").raw({0, 0, 0});
  auto core = CoreFile::parse(coreWithNotes(notes.data()), "crash.core");
  ASSERT_FALSE(core);
  std::string error = llvm::toString(core.takeError());
  EXPECT_EQ(error.rfind("crash.core: corrupt note segment:", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST(Limits, CoreMappedFileCountBeyondItsNoteIsAWarning) {
  // NT_PRSTATUS (enough for x86_64), then an NT_FILE claiming 2^40 files.
  Bytes notes;
  notes.u32(5).u32(336).u32(llvm::ELF::NT_PRSTATUS).str("CORE").raw({0, 0, 0});
  notes.raw(std::vector<uint8_t>(336, 0));
  notes.u32(5).u32(24).u32(0x46494c45).str("CORE").raw({0, 0, 0});
  notes.u64(uint64_t(1) << 40).u64(4096).u64(0);
  auto core = CoreFile::parse(coreWithNotes(notes.data()), "crash.core");
  ASSERT_TRUE(bool(core)) << llvm::toString(core.takeError());
  ASSERT_EQ((*core)->warnings().size(), 1u);
  EXPECT_EQ((*core)->warnings()[0], "the NT_FILE note (mapped files) is damaged or empty");
}

} // namespace
} // namespace dumpsyms
