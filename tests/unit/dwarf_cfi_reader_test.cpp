// CIE/FDE forms as they occur in the wild, built byte by byte: augmentation
// strings with z, P, L, R and S, every pointer encoding, DWARF64
// .debug_frame, and the rule opcodes.
#include "dump/cfi/dwarf_cfi_reader.h"
#include "tests/support/byte_writer.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {
namespace {

using namespace llvm::dwarf;

using Bytes = test_support::ByteWriter<std::string>;

// Wraps an entry body with a 32-bit length, padding to 8 bytes with nops.
std::string entry32(const std::string& body) {
  std::string padded = body;
  while ((padded.size() + 4) % 8)
    padded.push_back(static_cast<char>(DW_CFA_nop));
  return Bytes().u32(padded.size()).raw(padded).data();
}

const RegisterNames& x86_64() {
  static RegisterNames names = *RegisterNames::forMachine(llvm::ELF::EM_X86_64, true);
  return names;
}

std::vector<CfiFrame> read(const std::string& bytes, uint64_t address, bool eh,
                           std::string* warnings = nullptr) {
  CfiSectionInput input;
  input.bytes = bytes;
  input.address = address;
  input.is_eh_frame = eh;
  input.machine = llvm::ELF::EM_X86_64;
  input.origin = "test";
  CfiStats stats;
  Diagnostics diagnostics;
  std::vector<CfiFrame> frames = readDwarfCfi(input, x86_64(), stats, diagnostics);
  if (warnings)
    for (const std::string& w : diagnostics.warnings())
      *warnings += w + "\n";
  return frames;
}

std::string rule(const std::vector<CfiRule>& rules, const std::string& name) {
  for (const CfiRule& r : rules)
    if (r.name == name)
      return r.expression;
  return "(none)";
}

// The standard x86-64 CIE instructions: CFA = rsp + 8, rip at CFA - 8.
Bytes cieInstructions() {
  return Bytes().u8(DW_CFA_def_cfa).uleb(7).uleb(8).u8(DW_CFA_offset | 16).uleb(1);
}

TEST(DwarfCfiReader, EhFrameWithPersonalityLsdaAndSignalFrame) {
  const uint64_t section = 0x2000;
  // CIE: "zPLRS", personality indirect|pcrel|sdata4, LSDA udata4, FDE pcrel|sdata4.
  Bytes cie;
  cie.u32(0).u8(1).str("zPLRS").uleb(1).sleb(-8).uleb(16);
  Bytes augmentation;
  augmentation.u8(DW_EH_PE_indirect | DW_EH_PE_pcrel | DW_EH_PE_sdata4).u32(0x100);
  augmentation.u8(DW_EH_PE_udata4).u8(DW_EH_PE_pcrel | DW_EH_PE_sdata4);
  cie.uleb(augmentation.size()).raw(augmentation.data()).raw(cieInstructions().data());
  std::string cie_entry = entry32(cie.data());

  // FDE at offset cie_entry.size(): pc_begin is pcrel to its own field.
  uint64_t fde_offset = cie_entry.size();
  uint64_t pc_field = section + fde_offset + 8;
  const uint64_t function = 0x1130;
  Bytes fde;
  fde.u32(fde_offset + 4) // CIE pointer: distance back to the CIE
      .u32(static_cast<uint32_t>(function - pc_field))
      .u32(0x4a)
      .uleb(4)
      .u32(0x3000) // LSDA, udata4
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_def_cfa_offset)
      .uleb(16)
      .u8(DW_CFA_offset | 6)
      .uleb(2)
      .u8(DW_CFA_advance_loc | 3)
      .u8(DW_CFA_def_cfa_register)
      .uleb(6)
      .u8(DW_CFA_advance_loc1)
      .u8(0x45)
      .u8(DW_CFA_def_cfa)
      .uleb(7)
      .uleb(8);
  std::string bytes = cie_entry + entry32(fde.data()) + Bytes().u32(0).data();

  std::vector<CfiFrame> frames = read(bytes, section, true);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].range, (AddressRange{0x1130, 0x117a}));
  EXPECT_EQ(rule(frames[0].initial, ".cfa"), "$rsp 8 +");
  EXPECT_EQ(rule(frames[0].initial, ".ra"), ".cfa -8 + ^");
  ASSERT_EQ(frames[0].changes.size(), 3u);
  EXPECT_EQ(frames[0].changes[0].address, 0x1131u);
  EXPECT_EQ(rule(frames[0].changes[0].rules, ".cfa"), "$rsp 16 +");
  EXPECT_EQ(rule(frames[0].changes[0].rules, "$rbp"), ".cfa -16 + ^");
  EXPECT_EQ(rule(frames[0].changes[1].rules, ".cfa"), "$rbp 16 +");
  EXPECT_EQ(frames[0].changes[2].address, 0x1179u);
}

TEST(DwarfCfiReader, EveryFdePointerEncoding) {
  struct Case {
    uint8_t encoding;
    unsigned size;
  };
  for (Case c : {Case{DW_EH_PE_absptr, 8}, Case{DW_EH_PE_udata2, 2}, Case{DW_EH_PE_udata4, 4},
                 Case{DW_EH_PE_udata8, 8}, Case{DW_EH_PE_sdata2, 2}, Case{DW_EH_PE_sdata4, 4},
                 Case{DW_EH_PE_sdata8, 8}, Case{DW_EH_PE_uleb128, 0},
                 Case{uint8_t(DW_EH_PE_pcrel | DW_EH_PE_sdata8), 8}}) {
    SCOPED_TRACE(static_cast<int>(c.encoding));
    const uint64_t section = 0x4000;
    Bytes cie;
    cie.u32(0)
        .u8(1)
        .str("zR")
        .uleb(1)
        .sleb(-8)
        .uleb(16)
        .uleb(1)
        .u8(c.encoding)
        .raw(cieInstructions().data());
    std::string cie_entry = entry32(cie.data());
    uint64_t fde_offset = cie_entry.size();
    uint64_t pc_field = section + fde_offset + 8;
    const uint64_t function = 0x1230;
    uint64_t value = (c.encoding & 0x70) == DW_EH_PE_pcrel ? function - pc_field : function;
    Bytes fde;
    fde.u32(fde_offset + 4);
    auto put = [&](uint64_t v) {
      switch (c.size) {
      case 0:
        fde.uleb(v);
        break;
      case 2:
        fde.u16(v);
        break;
      case 4:
        fde.u32(v);
        break;
      default:
        fde.u64(v);
        break;
      }
    };
    put(value);
    put(0x20);
    fde.uleb(0).u8(DW_CFA_advance_loc | 4).u8(DW_CFA_def_cfa_offset).uleb(32);
    std::vector<CfiFrame> frames = read(cie_entry + entry32(fde.data()), section, true);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].range, (AddressRange{0x1230, 0x1250}));
    ASSERT_EQ(frames[0].changes.size(), 1u);
    EXPECT_EQ(rule(frames[0].changes[0].rules, ".cfa"), "$rsp 32 +");
  }
}

TEST(DwarfCfiReader, Dwarf64DebugFrame) {
  // CIE: 0xffffffff, 64-bit length, 64-bit CIE id (all ones), version 4.
  Bytes cie_body;
  cie_body.u64(UINT64_MAX)
      .u8(4)
      .str("")
      .u8(8)
      .u8(0)
      .uleb(1)
      .sleb(-8)
      .uleb(16)
      .raw(cieInstructions().data());
  Bytes section;
  section.u32(0xffffffff).u64(cie_body.size()).raw(cie_body.data());
  Bytes fde_body;
  fde_body.u64(0)
      .u64(0x5000)
      .u64(0x10)
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_def_cfa_offset)
      .uleb(24)
      .u8(DW_CFA_offset_extended_sf)
      .uleb(3)
      .sleb(3); // 3 * -8
  section.u32(0xffffffff).u64(fde_body.size()).raw(fde_body.data());
  std::vector<CfiFrame> frames = read(section.data(), 0, false);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].range, (AddressRange{0x5000, 0x5010}));
  ASSERT_EQ(frames[0].changes.size(), 1u);
  EXPECT_EQ(rule(frames[0].changes[0].rules, ".cfa"), "$rsp 24 +");
  EXPECT_EQ(rule(frames[0].changes[0].rules, "$rbx"), ".cfa -24 + ^");
}

TEST(DwarfCfiReader, EveryRuleKind) {
  Bytes cie;
  cie.u32(UINT32_MAX)
      .u8(1)
      .str("")
      .uleb(1)
      .sleb(-8)
      .uleb(16)
      .raw(cieInstructions().data())
      .u8(DW_CFA_same_value)
      .uleb(12); // r12: same value from the CIE on
  std::string cie_entry = entry32(cie.data());
  Bytes fde;
  fde.u32(0)
      .u64(0x6000)
      .u64(0x40)
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_offset | 3)
      .uleb(2) // rbx at CFA-16
      .u8(DW_CFA_val_offset)
      .uleb(13)
      .uleb(3) // r13 = CFA-24
      .u8(DW_CFA_register)
      .uleb(14)
      .uleb(0) // r14 in rax
      .u8(DW_CFA_undefined)
      .uleb(15) // r15 lost
      .u8(DW_CFA_remember_state)
      .u8(DW_CFA_advance_loc | 2)
      .u8(DW_CFA_def_cfa_offset)
      .uleb(48)
      .u8(DW_CFA_restore | 3) // rbx: no rule in the CIE
      .u8(DW_CFA_restore_extended)
      .uleb(12) // r12: the CIE's same_value
      .u8(DW_CFA_advance_loc | 3)
      .u8(DW_CFA_restore_state)
      .u8(DW_CFA_GNU_args_size)
      .uleb(16)
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_val_expression)
      .uleb(12)
      .uleb(2)
      .u8(DW_OP_plus_uconst)
      .uleb(8)
      .u8(DW_CFA_expression)
      .uleb(6)
      .uleb(2)
      .u8(DW_OP_breg7)
      .sleb(16);
  // .debug_frame with 32-bit entries: CIE id 0xffffffff, FDE CIE pointer 0.
  Bytes fde64;
  std::string fde_body = fde.data();
  std::vector<CfiFrame> frames = read(cie_entry + entry32(fde_body), 0, false);
  ASSERT_EQ(frames.size(), 1u);
  const CfiFrame& f = frames[0];
  EXPECT_EQ(rule(f.initial, "$r12"), "$r12");
  ASSERT_EQ(f.changes.size(), 4u);
  EXPECT_EQ(rule(f.changes[0].rules, "$rbx"), ".cfa -16 + ^");
  EXPECT_EQ(rule(f.changes[0].rules, "$r13"), ".cfa -24 +");
  EXPECT_EQ(rule(f.changes[0].rules, "$r14"), "$rax");
  EXPECT_EQ(rule(f.changes[0].rules, "$r15"), ".undef");
  EXPECT_EQ(rule(f.changes[1].rules, ".cfa"), "$rsp 48 +");
  EXPECT_EQ(rule(f.changes[1].rules, "$rbx"), "$rbx");   // back to the callee's value
  EXPECT_EQ(rule(f.changes[1].rules, "$r12"), "(none)"); // unchanged: still same value
  // restore_state brings back rbx's and the CFA's remembered rules.
  EXPECT_EQ(rule(f.changes[2].rules, ".cfa"), "$rsp 8 +");
  EXPECT_EQ(rule(f.changes[2].rules, "$rbx"), ".cfa -16 + ^");
  EXPECT_EQ(rule(f.changes[3].rules, "$r12"), ".cfa 8 +");
  EXPECT_EQ(rule(f.changes[3].rules, "$rbp"), "$rsp 16 + ^");
}

TEST(DwarfCfiReader, ProgramErrorsKeepTheRowsBefore) {
  Bytes cie;
  cie.u32(UINT32_MAX).u8(1).str("").uleb(1).sleb(-8).uleb(16).raw(cieInstructions().data());
  Bytes fde;
  fde.u32(0)
      .u64(0x7000)
      .u64(0x20)
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_def_cfa_offset)
      .uleb(16)
      .u8(DW_CFA_advance_loc | 1)
      .u8(DW_CFA_restore_state); // nothing remembered
  std::string warnings;
  std::vector<CfiFrame> frames =
      read(entry32(cie.data()) + entry32(fde.data()), 0, false, &warnings);
  ASSERT_EQ(frames.size(), 1u);
  ASSERT_EQ(frames[0].changes.size(), 1u);
  EXPECT_EQ(rule(frames[0].changes[0].rules, ".cfa"), "$rsp 16 +");
  EXPECT_NE(warnings.find("restore_state"), std::string::npos);
}

} // namespace
} // namespace dumpsyms

namespace dumpsyms {
namespace {

// Personality and LSDA pointers in the rarer encodings (datarel, textrel,
// aligned): only the FDE ranges matter to us, so such CIEs must not cost
// the section.
TEST(DwarfCfiReader, RarePersonalityEncodings) {
  for (uint8_t encoding :
       {uint8_t(DW_EH_PE_datarel | DW_EH_PE_sdata4), uint8_t(DW_EH_PE_textrel | DW_EH_PE_udata4),
        uint8_t(DW_EH_PE_indirect | DW_EH_PE_datarel | DW_EH_PE_sdata4)}) {
    SCOPED_TRACE(static_cast<int>(encoding));
    const uint64_t section = 0x3000;
    Bytes cie;
    cie.u32(0).u8(1).str("zPR").uleb(1).sleb(-8).uleb(16);
    Bytes augmentation;
    augmentation.u8(encoding).u32(0x40).u8(DW_EH_PE_pcrel | DW_EH_PE_sdata4);
    cie.uleb(augmentation.size()).raw(augmentation.data()).raw(cieInstructions().data());
    std::string cie_entry = entry32(cie.data());
    uint64_t fde_offset = cie_entry.size();
    Bytes fde;
    fde.u32(fde_offset + 4)
        .u32(static_cast<uint32_t>(0x1500 - (section + fde_offset + 8)))
        .u32(0x10)
        .uleb(0);
    std::string warnings;
    std::vector<CfiFrame> frames = read(cie_entry + entry32(fde.data()), section, true, &warnings);
    ASSERT_EQ(frames.size(), 1u) << warnings;
    EXPECT_EQ(frames[0].range, (AddressRange{0x1500, 0x1510}));
  }
}

TEST(DwarfCfiReader, RememberStateNestedPastTheLimitIsAWarning) {
  Bytes cie;
  cie.u32(0).u8(1).str("zR").uleb(1).sleb(-8).uleb(16).uleb(1).u8(DW_EH_PE_pcrel | DW_EH_PE_sdata4);
  cie.raw(cieInstructions().data());
  std::string cie_entry = entry32(cie.data());
  Bytes fde;
  fde.u32(cie_entry.size() + 4).u32(0x1000).u32(0x40).uleb(0);
  for (int i = 0; i < 1025; ++i)
    fde.u8(DW_CFA_remember_state);
  std::string warnings;
  read(cie_entry + entry32(fde.data()) + Bytes().u32(0).data(), 0x2000, true, &warnings);
  EXPECT_NE(warnings.find("test: FDE at offset 0x"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("the nesting of DW_CFA_remember_state is over the limit of 1024 levels"),
            std::string::npos)
      << warnings;
}

} // namespace
} // namespace dumpsyms
