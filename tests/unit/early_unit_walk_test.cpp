#include "dump/dwarf/early_unit_walk.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <string>

namespace dumpsyms {
namespace {

using namespace llvm::dwarf;

void uleb(std::string& bytes, unsigned value) {
  do {
    unsigned char byte = value & 0x7f;
    value >>= 7;
    bytes += static_cast<char>(value ? byte | 0x80 : byte);
  } while (value);
}

// One abbreviation table: each declaration (tag, children, attribute/form
// pairs; a value after DW_FORM_implicit_const), each number in LEB128.
std::string table(const std::vector<std::vector<unsigned>>& declarations) {
  std::string bytes;
  unsigned code = 1;
  for (const std::vector<unsigned>& declaration : declarations) {
    uleb(bytes, code++);
    for (unsigned value : declaration)
      uleb(bytes, value);
    bytes += std::string(2, '\0');
  }
  bytes += '\0';
  return bytes;
}

TEST(EarlyUnitWalk, UnitsReferringOnlyInsideThemselvesStandAlone) {
  std::string abbreviations = table({{DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp,
                                      DW_AT_stmt_list, DW_FORM_sec_offset},
                                     {DW_TAG_subprogram, 0, DW_AT_abstract_origin, DW_FORM_ref4}}) +
                              table({{DW_TAG_compile_unit, 0, DW_AT_language, DW_FORM_data1}});
  EXPECT_TRUE(unitsStandAlone(abbreviations));
  EXPECT_TRUE(unitsStandAlone(""));
}

TEST(EarlyUnitWalk, AReferenceIntoAnotherUnitAnywhereDisqualifies) {
  for (unsigned form : {DW_FORM_ref_addr, DW_FORM_ref_sig8, DW_FORM_indirect, DW_FORM_GNU_ref_alt,
                        DW_FORM_ref_sup4}) {
    std::string abbreviations =
        table({{DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp}}) +
        table({{DW_TAG_compile_unit, 1}, {DW_TAG_subprogram, 0, DW_AT_specification, form}});
    EXPECT_FALSE(unitsStandAlone(abbreviations)) << "form " << form;
  }
}

TEST(EarlyUnitWalk, SkeletonUnitsDisqualify) {
  EXPECT_FALSE(unitsStandAlone(table({{DW_TAG_skeleton_unit, 0, DW_AT_dwo_name, DW_FORM_strx1}})));
}

TEST(EarlyUnitWalk, ImplicitConstantsAreSkipped) {
  // DW_FORM_implicit_const carries its value in the table: a value that
  // looks like an attribute pair must not be read as one.
  std::string abbreviations =
      table({{DW_TAG_variable, 0, DW_AT_decl_file, DW_FORM_implicit_const, 0x10}});
  EXPECT_TRUE(unitsStandAlone(abbreviations));
}

TEST(EarlyUnitWalk, ATruncatedTableDisqualifies) {
  std::string abbreviations = table({{DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp}});
  EXPECT_FALSE(unitsStandAlone(abbreviations.substr(0, 4)));
  EXPECT_FALSE(unitsStandAlone("\x01\x11\x01\x03\x80"));
}

} // namespace
} // namespace dumpsyms
