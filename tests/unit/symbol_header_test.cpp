// The one MODULE/INFO reader: what it keeps of a file's head, and what it
// refuses, with which typed error.
#include "common/limits/input_limits.h"
#include "symbol_file/text/symbol_header.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

SymbolHeaderError::Problem headerProblem(llvm::StringRef head) {
  llvm::Expected<SymbolFileHeader> header = parseSymbolFileHeader(head);
  EXPECT_FALSE(header);
  if (header)
    return SymbolHeaderError::Problem::NoModuleLine;
  SymbolHeaderError::Problem problem{};
  llvm::handleAllErrors(header.takeError(),
                        [&](const SymbolHeaderError& error) { problem = error.problem(); });
  return problem;
}

TEST(SymbolFileHeader, KeepsOnlySoMuchOfWhatTheFileSays) {
  std::string text =
      "MODULE windows x86 ABC my module.pdb\r\nINFO CODE_ID 12345678 my module.dll\r\n";
  for (int i = 0; i < 20; ++i)
    text += "INFO LINE " + std::to_string(i) + "\n";
  text += "INFO " + std::string(2000, 'x') + "\n";
  text += "INFO CODE_ID FFFF second.dll\n";
  llvm::Expected<SymbolFileHeader> entry = parseSymbolFileHeader(text);
  ASSERT_TRUE(bool(entry));
  EXPECT_EQ(entry->debug_file, "my module.pdb");
  EXPECT_EQ(entry->code_id.str(), "12345678");
  EXPECT_EQ(entry->code_file, "my module.dll");
  ASSERT_EQ(entry->info.size(), limits::kMaxHeaderInfoLines);
  EXPECT_EQ(entry->info.front(), "LINE 0");

  // A whole small file may end without '\n'; a cut read's last line is not trusted.
  entry = parseSymbolFileHeader("MODULE mac arm64 ID Bar\nINFO CODE_ID C0DE");
  ASSERT_TRUE(bool(entry));
  EXPECT_EQ(entry->code_id.str(), "C0DE");
  EXPECT_EQ(entry->code_file, "");
  std::string cut = "MODULE mac arm64 ID Bar\nINFO " + std::string(limits::kSymbolHeaderBytes, 'y');
  cut.resize(limits::kSymbolHeaderBytes);
  entry = parseSymbolFileHeader(cut);
  ASSERT_TRUE(bool(entry));
  EXPECT_TRUE(entry->info.empty());

  using Problem = SymbolHeaderError::Problem;
  EXPECT_EQ(headerProblem(""), Problem::NoModuleLine);
  EXPECT_EQ(headerProblem("MODULE a b c\n"), Problem::IncompleteModuleLine);
  EXPECT_EQ(headerProblem("MODULE  b c d\n"), Problem::IncompleteModuleLine);
  EXPECT_EQ(headerProblem("FILE 0 a.c\nMODULE a b c d\n"), Problem::NoModuleLine);
  EXPECT_EQ(headerProblem(llvm::StringRef("MODULE a b c\0d\n", 15)), Problem::ControlBytes);
  EXPECT_EQ(headerProblem("MODULE a b c d\x1b[31m\n"), Problem::ControlBytes);
  EXPECT_EQ(toString(parseSymbolFileHeader("MODULE a b c\n").takeError()),
            "has a MODULE line without os, cpu, id and name");
  // Every prefix of a header, and every byte of it flipped, parses or not
  // without harm.
  std::string header = "MODULE Linux x86_64 ABCD name\nINFO CODE_ID 12 n\nINFO X y\n";
  for (size_t i = 0; i <= header.size(); ++i) {
    llvm::consumeError(parseSymbolFileHeader(llvm::StringRef(header).substr(0, i)).takeError());
    for (int byte : {0, int('\n'), int(' '), 0xff}) {
      std::string flipped = header;
      if (i < flipped.size()) {
        flipped[i] = static_cast<char>(byte);
        llvm::consumeError(parseSymbolFileHeader(flipped).takeError());
      }
    }
  }
}

TEST(SymbolFileHeader, SaysWhetherBytesStartAsASymbolFile) {
  EXPECT_TRUE(startsAsSymbolFile("MODULE Linux x86_64 ID a.so\n"));
  EXPECT_FALSE(startsAsSymbolFile("<html>"));
  EXPECT_FALSE(startsAsSymbolFile("MODULE"));
}

} // namespace
} // namespace dumpsyms
