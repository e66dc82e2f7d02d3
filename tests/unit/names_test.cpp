// The two spellings of names (--names llvm|breakpad): the demanglers, and
// how Breakpad's rules for each source language treat a linkage name and
// join scope names. Breakpad's spellings here are what its dump_syms wrote
// for the shared corpus.
#include "dump/dwarf/breakpad_language.h"
#include "dump/object/demangle.h"

#include <gtest/gtest.h>
#include <llvm/BinaryFormat/Dwarf.h>

namespace dumpsyms {
namespace {

std::string breakpad(const char* name) {
  return demangleSymbol(name, NameStyle::Breakpad);
}
std::string llvm(const char* name) {
  return demangleSymbol(name, NameStyle::Llvm);
}

TEST(Names, PlainFunction) {
  EXPECT_EQ(breakpad("_ZN6corpus4geom8SumAreasERKSt6vectorIPNS0_5ShapeESaIS3_EE"),
            "corpus::geom::SumAreas(std::vector<corpus::geom::Shape*, "
            "std::allocator<corpus::geom::Shape*> > const&)");
  EXPECT_EQ(llvm("_ZN6corpus4geom8SumAreasERKSt6vectorIPNS0_5ShapeESaIS3_EE"),
            "corpus::geom::SumAreas(std::vector<corpus::geom::Shape*, "
            "std::allocator<corpus::geom::Shape*>> const&)");
}

TEST(Names, Clones) {
  EXPECT_EQ(breakpad("_Z3foov.cold"), "foo() [clone .cold]");
  EXPECT_EQ(llvm("_Z3foov.cold"), "foo() (.cold)");
  EXPECT_EQ(breakpad("_Z3bari.constprop.0.isra.0"),
            "bar(int) [clone .constprop.0] [clone .isra.0]");
}

TEST(Names, Lambdas) {
  EXPECT_EQ(breakpad("_ZZ4mainENKUliE_clEi"), "main::{lambda(int)#1}::operator()(int) const");
  EXPECT_EQ(llvm("_ZZ4mainENKUliE_clEi"), "main::'lambda'(int)::operator()(int) const");
}

TEST(Names, AbiTags) {
  EXPECT_EQ(breakpad("_ZNK6corpus4geom5Shape4NameB5cxx11Ev"),
            "corpus::geom::Shape::Name[abi:cxx11]() const");
}

TEST(Names, UnmangledSymbols) {
  EXPECT_EQ(breakpad("main"), "main");
  EXPECT_EQ(llvm("main"), "main");
  EXPECT_EQ(breakpad("_start"), "_start");
  // Breakpad hands every symbol to __cxa_demangle, which reads a bare type
  // encoding: a C function called `f` is a PUBLIC `float`.
  EXPECT_EQ(breakpad("f"), "float");
  EXPECT_EQ(llvm("f"), "f");
  EXPECT_FALSE(cxaDemangle("_Z"));
  EXPECT_FALSE(cxaDemangle("_Znot a name"));
}

TEST(Names, CxxLinkageNames) {
  BreakpadLanguage cxx = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_C_plus_plus_14);
  EXPECT_EQ(cxx.qualifiedFromLinkageName("_Z3fooi"), "foo(int)");
  // Only names that start with _Z are demangled; a name the demangler
  // rejects only stands in for a missing DW_AT_name.
  EXPECT_EQ(cxx.qualifiedFromLinkageName("f"), std::nullopt);
  EXPECT_EQ(cxx.qualifiedFromLinkageName("_Zx"), std::nullopt);
  EXPECT_EQ(cxx.qualify("", "f"), "f");
  EXPECT_EQ(cxx.qualify("ns::Class<int>", "f"), "ns::Class<int>::f");
}

TEST(Names, CLinkageNames) {
  // An asm label (glibc's open is open64) is no name Breakpad uses: the
  // DW_AT_name is.
  BreakpadLanguage c = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_C11);
  EXPECT_EQ(c.qualifiedFromLinkageName("open64"), std::nullopt);
  EXPECT_EQ(BreakpadLanguage::forUnit(std::nullopt).qualify("a", "b"), "a::b");
}

TEST(Names, OtherLanguages) {
  BreakpadLanguage rust = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_Rust);
  EXPECT_EQ(rust.qualifiedFromLinkageName("_ZN4core3fmt5write17h0123456789abcdefE"),
            "_ZN4core3fmt5write17h0123456789abcdefE");
  EXPECT_EQ(rust.qualify("fmt", "write"), "fmt.write");
  BreakpadLanguage objc = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_ObjC);
  EXPECT_EQ(objc.qualify("Class", "-[Class method]"), "-[Class method]");
  BreakpadLanguage objcxx = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_ObjC_plus_plus);
  EXPECT_EQ(objcxx.qualify("Class", "-[Class method]"), "-[Class method]");
  EXPECT_EQ(objcxx.qualify("ns", "f"), "ns::f");
  BreakpadLanguage java = BreakpadLanguage::forUnit(llvm::dwarf::DW_LANG_Java);
  EXPECT_EQ(java.qualifiedFromLinkageName("_Z3fooi"), std::nullopt);
  EXPECT_EQ(java.qualify("pkg.Class", "run"), "pkg.Class.run");
}

} // namespace
} // namespace dumpsyms
