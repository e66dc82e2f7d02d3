// The small pieces of the PDB/PE readers: debug ids, name undecoration,
// inline-site annotations, FPO records, where a PDB is looked for, and the
// PE header check.
#include "common/ids/debug_id.h"
#include "dump/locate/pdb_locator.h"
#include "dump/pdb/frame_data.h"
#include "dump/pdb/inline_annotations.h"
#include "dump/pdb/pdb_file.h"
#include "dump/pdb/windows_names.h"
#include "dump/pe/pe_header_check.h"

#include <cstring>
#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(WindowsDebugId, GuidFieldsThenAge) {
  // {E7 1E 43 E5 - B6 91 - B8 B9 - 4C 4C 44 20 50 44 42 2E} stored
  // little-endian in its first three fields, as a PDB and RSDS hold it.
  std::array<uint8_t, 16> guid = {0xE7, 0x1E, 0x43, 0xE5, 0xB6, 0x91, 0xB8, 0xB9,
                                  0x4C, 0x4C, 0x44, 0x20, 0x50, 0x44, 0x42, 0x2E};
  EXPECT_EQ(DebugId::fromGuid(guid, 1).str(), "E5431EE791B6B9B84C4C44205044422E1");
  EXPECT_EQ(DebugId::fromGuid(guid, 0x2a).str(), "E5431EE791B6B9B84C4C44205044422E2a");
}

TEST(UndecorateName, X86CDecorations) {
  EXPECT_EQ(undecorateName("_main", true).name, "main");
  UndecoratedName stdcall = undecorateName("_checksum@8", true);
  EXPECT_EQ(stdcall.name, "checksum");
  EXPECT_EQ(stdcall.stack_parameter_size, 8u);
  EXPECT_EQ(undecorateName("@fast@12", true).name, "fast");
  EXPECT_EQ(undecorateName("vector@@16", true).name, "vector");
  EXPECT_EQ(undecorateName("_main", false).name, "_main"); // x64 has no decorations
  EXPECT_EQ(undecorateName("_", true).name, "_");
}

TEST(UndecorateName, MsvcManglingAsLlvmSymbolizerPrintsIt) {
  EXPECT_EQ(undecorateName("?area@Square@geometry@@UEBAHXZ", false).name,
            "geometry::Square::area(void) const");
  EXPECT_EQ(undecorateName("?not mangled", false).name, "?not mangled");
}

TEST(InlineAnnotations, PiecesLinesAndFiles) {
  // ChangeCodeOffsetAndLineOffset(code +0, line +0); ChangeCodeLength 3;
  // ChangeLineOffset +2; ChangeCodeOffset 5 (a second piece at 8);
  // ChangeFile 0x18; ChangeCodeLengthAndCodeOffset(length 4, offset +6).
  std::vector<uint8_t> bytes = {11, 0x00, 4, 3, 6, 4, 3, 5, 5, 0x18, 12, 4, 6};
  std::vector<InlinePiece> pieces = decodeInlineAnnotations(bytes, 10, 0, 100);
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0].start, 0u);
  EXPECT_EQ(pieces[0].end, 3u);
  EXPECT_EQ(pieces[0].line, 10u);
  EXPECT_EQ(pieces[1].start, 8u);
  EXPECT_EQ(pieces[1].end, 14u); // runs until the next piece starts
  EXPECT_EQ(pieces[1].line, 12u);
  EXPECT_EQ(pieces[1].file, 0u);
  EXPECT_EQ(pieces[2].start, 14u);
  EXPECT_EQ(pieces[2].end, 18u);
  EXPECT_EQ(pieces[2].file, 0x18u);
}

TEST(InlineAnnotations, NegativeLineDeltasAndTruncation) {
  // Line -1 (operand 3: low bit set means negative), code +2, then a
  // truncated four-byte operand.
  std::vector<uint8_t> bytes = {11, (3 << 4) | 2, 3, 0xc0, 0x01};
  std::vector<InlinePiece> pieces = decodeInlineAnnotations(bytes, 20, 7, 9);
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].start, 2u);
  EXPECT_EQ(pieces[0].end, 9u); // no length given: to the procedure's end
  EXPECT_EQ(pieces[0].line, 19u);
}

TEST(FrameData, FpoRecordsCountWordsAndRegisters) {
  llvm::object::FpoData fpo{};
  fpo.Offset = 0x2b00;
  fpo.Size = 0x1f;
  fpo.NumLocals = 2;                            // 8 bytes
  fpo.NumParams = 1;                            // 4 bytes
  fpo.Attributes = 0x13 | (2 << 8) | (1 << 12); // prologue 0x13, 2 registers, uses ebp
  StackWinRecord record = stackWinFromFpo(fpo);
  EXPECT_EQ(record.type, 0u);
  EXPECT_EQ(record.address, 0x2b00u);
  EXPECT_EQ(record.code_size, 0x1fu);
  EXPECT_EQ(record.prologue_size, 0x13u); // 8 bits, as winnt.h has it
  EXPECT_EQ(record.parameter_size, 4u);
  EXPECT_EQ(record.saved_registers_size, 8u);
  EXPECT_EQ(record.locals_size, 8u);
  EXPECT_TRUE(record.program.empty());
  EXPECT_TRUE(record.allocates_base_pointer);
}

TEST(PdbLocator, CandidatesInOrder) {
  EXPECT_EQ(pdbCandidates("/out/app.exe", "C:\\build\\app.pdb", "", {"/syms", "/more"}),
            (std::vector<std::string>{"C:\\build\\app.pdb", "/out/app.pdb", "/syms/app.pdb",
                                      "/more/app.pdb"}));
  EXPECT_EQ(pdbCandidates("app.exe", "obj\\app.pdb", "", {}),
            (std::vector<std::string>{"obj\\app.pdb", "obj/app.pdb", "app.pdb"}));
  EXPECT_EQ(pdbCandidates("/out/app.exe", "/b/app.pdb", "/x/y.pdb", {"/syms"}),
            (std::vector<std::string>{"/x/y.pdb"}));
}

TEST(PeHeaderCheck, TruncationsAreNamed) {
  EXPECT_EQ(peHeaderProblem("MZ"), "no DOS header");
  std::string dos(64, '\0');
  dos[0] = 'M';
  dos[1] = 'Z';
  dos[0x3c] = 64; // PE header right after
  EXPECT_NE(peHeaderProblem(dos).find("no PE signature"), std::string::npos);
  std::string pe = dos + std::string("PE\0\0", 4) + std::string(20, '\0');
  pe[64 + 4 + 16] = '\x70'; // SizeOfOptionalHeader past the end
  EXPECT_NE(peHeaderProblem(pe).find("optional header"), std::string::npos);
}

} // namespace
} // namespace dumpsyms
