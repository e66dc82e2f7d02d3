// Names of other languages' symbols in LLVM's spelling (dump/object/demangle):
// Rust legacy names without their hash, D names as binutils' c++filt -s
// dlang prints them, gfortran's module procedures, and the symbol index
// that names code by a sized symbol before a size-0 label. The expected
// spellings come from rustc-demangle's documented output, c++filt and the
// sources' own names, not from this code.
#include "dump/object/demangle.h"
#include "dump/object/dlang_demangle.h"
#include "dump/object/rust_demangle.h"
#include "dump/object/symbol_table.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

TEST(RustLegacyNames, PathWithoutTheHash) {
  EXPECT_EQ(demangle("_ZN6shapes7largest17h5ffd859aa41a1f54E"), "shapes::largest");
  EXPECT_EQ(demangle("_ZN6shapes8geometry5total17hb6470879f151078fE"), "shapes::geometry::total");
  // Mach-O keeps one more underscore.
  EXPECT_EQ(demangleRustLegacy("__ZN6shapes4main17hce0a5599b8d95f1fE"), "shapes::main");
}

TEST(RustLegacyNames, EscapesAreDecoded) {
  EXPECT_EQ(demangle("_ZN67_$LT$shapes..geometry..Square$u20$as$u20$shapes..geometry..Area$GT$"
                     "4area17h60fc27a45507caa1E"),
            "<shapes::geometry::Square as shapes::geometry::Area>::area");
  EXPECT_EQ(demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h7d6f2cb4eac97484E"),
            "std::rt::lang_start::{{closure}}");
  EXPECT_EQ(demangle("_ZN4core3ptr55drop_in_place$LT$$LP$$RF$u8$C$$BP$const$u20$i32$RP$$GT$"
                     "17h0123456789abcdefE"),
            "core::ptr::drop_in_place<(&u8,*const i32)>");
}

TEST(RustLegacyNames, UnknownEscapesStayTheHashGoes) {
  EXPECT_EQ(demangle("_ZN6f$XX$o17h0123456789abcdefE"), "f$XX$o");
  EXPECT_EQ(demangle("_ZN4a$b$17h0123456789abcdefE"), "a$b$");
  EXPECT_EQ(demangle("_ZN5$u0$x17h0123456789abcdefE"), "$u0$x"); // a control character
}

TEST(RustLegacyNames, LtoSuffixDroppedOthersKept) {
  EXPECT_EQ(demangle("_ZN3foo3bar17h0123456789abcdefE.llvm.16791135377908753612"), "foo::bar");
  EXPECT_EQ(demangleRustLegacy("_ZN3foo3bar17h0123456789abcdefE.cold"), "foo::bar.cold");
}

TEST(RustLegacyNames, OnlyNamesWithTheHash) {
  // C++ names, and Rust-looking ones without a well-formed hash, are not
  // Rust's: LLVM's Itanium demangler reads them as before.
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo3barEv"));
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo3barE"));
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo17h0123456789abcdeE"));   // 15 digits
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo17h0123456789ABCDEFE"));  // upper case
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo17h0123456789abcdefEv")); // parameters
  EXPECT_FALSE(demangleRustLegacy("_ZN3foo17h0123456789abcdef"));   // no E
  EXPECT_FALSE(demangleRustLegacy("_ZN99foo17h0123456789abcdefE")); // length past the end
  EXPECT_EQ(demangle("_ZN3foo3barEv"), "foo::bar()");
}

TEST(RustNames, V0AsLlvmSpellsIt) {
  EXPECT_EQ(demangle("_RNvCs1234_7mycrate3foo"), "mycrate::foo");
}

TEST(RustNames, BreakpadSpellingKeepsTheHash) {
  EXPECT_EQ(demangleSymbol("_ZN6shapes7largest17h5ffd859aa41a1f54E", NameStyle::Breakpad),
            "shapes::largest::h5ffd859aa41a1f54");
}

TEST(DlangNames, AsCxxFiltPrintsThem) {
  EXPECT_EQ(demangle("_D4sums8triangleFiZi"), "sums.triangle(int)");
  EXPECT_EQ(demangle("_D4sums__T5twiceTiZQjFNaNbNiNfiZi"), "sums.twice!(int).twice(int)");
  EXPECT_EQ(demangle("_D4sums11Accumulator3addMFlZl"), "sums.Accumulator.add(long)");
  EXPECT_EQ(demangle("_Dmain"), "D main");
  EXPECT_EQ(demangle("_D3foo3Bar3bazMxFZv"), "foo.Bar.baz() const");
  EXPECT_EQ(demangle("_D3foo3barFAyaPFiZvDFNaiZlZv"),
            "foo.bar(immutable(char)[], void(int) function, long(int) pure delegate)");
  EXPECT_EQ(demangle("_D3foo3barFKiJiLiMiNkiIiZv"),
            "foo.bar(ref int, out int, lazy int, scope int, return int, in int)");
  EXPECT_EQ(demangle("_D3foo__T3barVai97Z3barFZv"), "foo.bar!('a').bar()");
  EXPECT_EQ(demangle("_D3foo__T3barViN5Z3barFZv"), "foo.bar!(-5).bar()");
  EXPECT_EQ(demangle("_D3foo3barFiYv"), "foo.bar(int, ...)");
  EXPECT_EQ(demangle("_D3gcc9backtrace12LibBacktrace6__ctorMFiZCQBoQBnQBg"),
            "gcc.backtrace.LibBacktrace.this(int)");
  EXPECT_EQ(demangle("_D4sums12__ModuleInfoZ"), "ModuleInfo for sums");
}

TEST(DlangNames, BrokenNamesStayAsTheyAre) {
  for (const char* broken :
       {"_D", "_D4sum", "_D4sums8triangleFiZ", "_D4sums8triangleFiZiX", "_D4sumsQzzzzzzzz",
        "_D4sums8triangleFQaZi", "_D9999999999999999999999x"})
    EXPECT_FALSE(demangleDlang(broken)) << broken;
  // Back references that point at themselves end at the depth bound.
  EXPECT_FALSE(demangleDlang("_D1aFQaZv"));
}

TEST(FortranNames, ModuleProcedures) {
  EXPECT_EQ(demangle("__grid_mod_MOD_grid_step"), "grid_mod::grid_step");
  EXPECT_EQ(demangleSymbol("__grid_mod_MOD_grid_step", NameStyle::Breakpad),
            "__grid_mod_MOD_grid_step");
  // Compiler-made procedures (leading underscores) and names that are not
  // gfortran's are left alone.
  EXPECT_EQ(demangle("__grid_mod_MOD___copy_grid_mod_Cell"), "__grid_mod_MOD___copy_grid_mod_Cell");
  EXPECT_EQ(demangle("__Grid_MOD_step"), "__Grid_MOD_step");
  EXPECT_EQ(demangle("grid_step_"), "grid_step_");
  EXPECT_EQ(demangle("__mod_MOD_"), "__mod_MOD_");
}

TEST(SymbolIndex, ASizedSymbolNamesCodeBeforeASizeZeroLabel) {
  // Go: `runtime.text` (size 0) comes first in the table, at the address
  // of the first function.
  std::vector<CodeSymbol> symbols = {{0x401000, 0, "runtime.text"},
                                     {0x401000, 0x59, "internal/cpu.Initialize"},
                                     {0x401060, 0, "label"}};
  SymbolIndex index(symbols);
  ASSERT_TRUE(index.nameAt(0x401000));
  EXPECT_EQ(*index.nameAt(0x401000), "internal/cpu.Initialize");
  ASSERT_TRUE(index.nameAt(0x401060));
  EXPECT_EQ(*index.nameAt(0x401060), "label");
  EXPECT_FALSE(index.nameAt(0x401001));
}

} // namespace
} // namespace dumpsyms
