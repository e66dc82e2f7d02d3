// Breakpad-style PDB names: MSVC names in undname's spelling under
// Breakpad's flags, and Breakpad's edits of what DIA gives. The expected
// strings are undname's (Microsoft's undecorator) output for these names
// with the same flags, and Breakpad's rules as its Windows dump_syms
// applies them (the two MSVC PDBs' references in ../shared/windows check
// the same end to end).
#include "dump/pdb/breakpad_pdb_names.h"
#include "dump/pdb/undname_printer.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

std::string undname(const char* mangled) {
  return undnameStyle(mangled).value_or("<refused>");
}

TEST(UndnameStyle, MembersAndSpecialNames) {
  EXPECT_EQ(undname("?h@C@google_breakpad@@QAEXABV12@@Z"),
            "google_breakpad::C::h(google_breakpad::C const &)");
  EXPECT_EQ(undname("??_GC@google_breakpad@@UAEPAXI@Z"),
            "google_breakpad::C::`scalar deleting destructor'(unsigned int)");
  EXPECT_EQ(undname("??_EC@@UAEPAXI@Z"), "C::`vector deleting destructor'(unsigned int)");
  EXPECT_EQ(undname("??1C@@QAE@XZ"), "C::~C(void)");
  EXPECT_EQ(undname("??2@YAPAXI@Z"), "operator new(unsigned int)");
  EXPECT_EQ(undname("??4C@@QAEAAV0@ABV0@@Z"), "C::operator=(C const &)");
  // A const method loses its trailing const (no `this` qualifiers).
  EXPECT_EQ(undname("?f@C@@QBEHXZ"), "C::f(void)");
}

TEST(UndnameStyle, Punctuation) {
  EXPECT_EQ(undname("?f@@YAXHH@Z"), "f(int,int)");
  EXPECT_EQ(undname("?f@@YAXPAPAD@Z"), "f(char * *)");
  EXPECT_EQ(undname("?f@@YAXPBD@Z"), "f(char const *)");
  EXPECT_EQ(undname("?f@@YAXQAD@Z"), "f(char * const)");
  EXPECT_EQ(undname("?f@@YAXPEAD@Z"), "f(char *)"); // x64: no __ptr64
  EXPECT_EQ(undname("?f@@YAXHZZ"), "f(int,...)");
  EXPECT_EQ(undname("?f@@YAXP6AXH@Z@Z"), "f(void (*)(int))");
  EXPECT_EQ(undname("?f@@YAX_J_K@Z"), "f(__int64,unsigned __int64)");
}

TEST(UndnameStyle, TemplatesAndNamespaces) {
  EXPECT_EQ(undname("??0?$vector@HV?$allocator@H@std@@@std@@QAE@XZ"),
            "std::vector<int,std::allocator<int> >::vector<int,std::allocator<int> >(void)");
  EXPECT_EQ(undname("??$f@H@@YAXH@Z"), "f<int>(int)");
  EXPECT_EQ(undname("?f@?A0x12345678@@YAXXZ"), "`anonymous namespace'::f(void)");
}

TEST(UndnameStyle, RefusesWhatDoesNotParse) {
  EXPECT_FALSE(undnameStyle("?"));
  EXPECT_FALSE(undnameStyle("?f@@YA"));
  std::string deep = "?f@@YAX";
  for (int i = 0; i < 500; ++i)
    deep += "PA";
  deep += "H@Z";
  EXPECT_FALSE(undnameStyle(deep)); // nested past the printer's bound
}

TEST(BreakpadPdbNames, DecoratedNames) {
  EXPECT_EQ(breakpadNameOfDecorated("?f@C@@QAEXXZ").name, "C::f()");
  EXPECT_EQ(breakpadNameOfDecorated("?f@@YAXXZ.llvm.4711").name, "f()");
  BreakpadPdbName stdcall = breakpadNameOfDecorated("___crtTlsAlloc@4");
  EXPECT_EQ(stdcall.name, "__crtTlsAlloc");
  EXPECT_EQ(stdcall.stack_parameter_size, 4u);
  BreakpadPdbName fastcall = breakpadNameOfDecorated("@_EH4_LocalUnwind@16");
  EXPECT_EQ(fastcall.name, "_EH4_LocalUnwind");
  EXPECT_EQ(fastcall.stack_parameter_size, 8u); // 8 bytes in ecx and edx
  EXPECT_EQ(breakpadNameOfDecorated("@f@4").stack_parameter_size, 0u);
  EXPECT_EQ(breakpadNameOfDecorated("__chkstk").name, "_chkstk");
  EXPECT_EQ(breakpadNameOfDecorated("_lockexit").name, "lockexit"); // x64 too
  EXPECT_EQ(breakpadNameOfDecorated("mainCRTStartup").name, "mainCRTStartup");
  EXPECT_EQ(breakpadNameOfDecorated("_f@08").name, "f@08"); // not a size: cdecl
  EXPECT_EQ(breakpadNameOfDecorated("").name, "<name omitted>");
}

TEST(BreakpadPdbNames, LocalNames) {
  EXPECT_EQ(breakpadNameOfLocal("static int google_breakpad::i(void)"),
            "static int google_breakpad::i()");
  EXPECT_EQ(breakpadNameOfLocal("static void doexit(int, int, int)"),
            "static void doexit(int, int, int)");
}

} // namespace
} // namespace dumpsyms
