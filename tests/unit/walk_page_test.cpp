// The walk page (/ui/walk) against its contract in docs/PAGES.md: threads
// in `symtool stackwalk --json`'s order with its values in the data-
// attributes, everything the dump supplied escaped, the explain lines under
// the module they name, the token field only where the server has tokens.
#include "server/pages/walk_page.h"
#include "walk/printers/crash_reason.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t found = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++found;
  return found;
}

SnapshotModule module(uint64_t base, const std::string& name, const std::string& id) {
  SnapshotModule out;
  out.base = base;
  out.size = 0x1000;
  out.code_file = "/usr/lib/" + name;
  out.debug_file = name;
  out.debug_id = DebugId(id);
  return out;
}

ResolvedStackFrame frame(uint64_t address, const SnapshotModule* in, FrameTrust trust) {
  ResolvedStackFrame out;
  out.address = address;
  out.trust = trust;
  if (in) {
    out.module = in;
    out.module_name = pathFileName(in->code_file);
    out.offset = address - in->base;
  }
  return out;
}

ModuleSymbolStatus status(const SnapshotModule& module, SymbolStatus found) {
  ModuleSymbolStatus out;
  out.module = &module;
  out.status = found;
  out.walked = out.looked_up = true;
  if (found != SymbolStatus::Loaded)
    out.problem = "not in the store";
  return out;
}

// Two threads, the second (tid 20) the crashed one; two modules, libfoo
// with symbols and libbar without.
struct SmallWalk {
  SmallWalk() {
    auto made = std::make_shared<ProcessSnapshot>();
    made->format = "minidump";
    made->cpu = SnapshotCpu::Amd64;
    made->system.os = SnapshotOs::Linux;
    made->modules.push_back(module(0x1000, "libfoo.so", "AAAA0"));
    made->modules.push_back(module(0x4000, "libbar.so", "BBBB0"));
    made->modules.push_back(module(0x8000, "libbaz.so", "CCCC0"));
    made->crash = SnapshotCrash();
    made->crash->thread_id = 20;
    made->crash->code = 11;
    made->crash->address = 0x42;
    made->warnings.push_back("odd <stream>");
    snapshot = made;
    walk.snapshot = made;

    WalkedThread idle;
    idle.tid = 10;
    idle.frames.push_back(frame(0x4010, &made->modules[1], FrameTrust::Context));
    idle.end = "no caller";
    WalkedThread crashed;
    crashed.tid = 20;
    crashed.crashed = crashed.requesting = true;
    crashed.frames.push_back(frame(0x1010, &made->modules[0], FrameTrust::Context));
    crashed.frames.back().function = "<script>alert(1)</script>";
    crashed.frames.back().file = "/src/foo.cc";
    crashed.frames.back().line = 12;
    crashed.frames.push_back(frame(0x9999, nullptr, FrameTrust::Scan));
    crashed.end = "scan found nothing";
    walk.threads = {idle, crashed};
    walk.requesting = 1;
    walk.crashed = true;
    walk.symbols_given = true;
    walk.modules.push_back(status(made->modules[0], SymbolStatus::Loaded));
    walk.modules.push_back(status(made->modules[1], SymbolStatus::Missing));
    walk.modules.push_back(status(made->modules[2], SymbolStatus::Missing));
    walk.modules.back().looked_up = false; // no frame in it
  }

  WalkPageInput input() const {
    WalkPageInput in;
    in.dump_name = "crash<1>.dmp";
    in.dump_size = 4096;
    in.walk = &walk;
    in.explain = {
        "module libfoo.so (libfoo.so AAAA0): /store/libfoo.so/AAAA0/libfoo.so.sym: loaded",
        "module libbar.so (libbar.so BBBB0): /store/libbar.so/BBBB0/libbar.so.sym: "
        "missing <here>",
        "module libbaz.so (libbaz.so CCCC0): not looked for: no walked frame needed it"};
    in.module_link = [](const std::string& file, const DebugId& id) {
      return file == "libfoo.so" ? "/ui/module/" + file + "/" + id.str() + "?a=1&b=2"
                                 : std::string();
    };
    return in;
  }

  std::shared_ptr<const ProcessSnapshot> snapshot;
  ProcessWalk walk;
};

TEST(WalkPage, DumpTextIsEscaped) {
  SmallWalk small;
  std::string page = renderWalkResult(small.input());
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find(">&lt;script&gt;alert(1)&lt;/script&gt;<"), std::string::npos) << page;
  EXPECT_NE(page.find("data-function=\"&lt;script&gt;alert(1)&lt;/script&gt;\""),
            std::string::npos);
  EXPECT_NE(page.find("crash&lt;1&gt;.dmp"), std::string::npos);
  EXPECT_NE(page.find("odd &lt;stream&gt;"), std::string::npos);
  // The link the caller gave, escaped as an attribute.
  EXPECT_NE(page.find("href=\"/ui/module/libfoo.so/AAAA0?a=1&amp;b=2\""), std::string::npos);
}

TEST(WalkPage, ThreadsInTheJsonOrderWithItsValues) {
  SmallWalk small;
  std::string page = renderWalkResult(small.input());
  // requestingFirst: the crashed thread is the JSON's threads[0].
  size_t first = page.find("data-index=\"0\" data-tid=\"20\" data-crashed=\"true\" "
                           "data-requesting=\"true\"");
  size_t second = page.find("data-index=\"1\" data-tid=\"10\" data-crashed=\"false\" "
                            "data-requesting=\"false\"");
  ASSERT_NE(first, std::string::npos) << page;
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_EQ(count(page, "<section class=\"thread"), 2u);
  EXPECT_EQ(count(page, "<tr class=\"frame "), 3u);
  EXPECT_NE(page.find("data-module=\"libfoo.so\" data-function=\"&lt;script&gt;alert(1)&lt;/"
                      "script&gt;\" data-file=\"/src/foo.cc\" data-line=\"12\" "
                      "data-trust=\"context\" data-offset=\"0x10\""),
            std::string::npos);
  // A frame without a module: the JSON's nulls.
  EXPECT_NE(page.find("data-module=\"\" data-function=\"\" data-file=\"\" data-line=\"\" "
                      "data-trust=\"scan\" data-offset=\"\""),
            std::string::npos);
  EXPECT_NE(page.find("<section id=\"crash\">"), std::string::npos);
  EXPECT_NE(page.find("data-reason=\"" + crashReason(*small.snapshot) + "\""), std::string::npos);
  EXPECT_NE(page.find("data-address=\"0x42\""), std::string::npos);
  EXPECT_NE(page.find("<a href=\"#thread-0\">20</a>"), std::string::npos);
}

TEST(WalkPage, ModulesWithTheirStatusAndWhatWasLookedFor) {
  SmallWalk small;
  std::string page = renderWalkResult(small.input());
  EXPECT_NE(page.find("<section id=\"modules\">"), std::string::npos);
  EXPECT_NE(page.find("data-name=\"libfoo.so\" data-symbols=\"loaded\""), std::string::npos);
  EXPECT_NE(page.find("data-name=\"libbar.so\" data-symbols=\"missing\""), std::string::npos);
  // Only the modules without symbols show their search, as --explain words it.
  EXPECT_NE(page.find("<li class=\"mono\">module libbar.so (libbar.so BBBB0): "
                      "/store/libbar.so/BBBB0/libbar.so.sym: missing &lt;here&gt;</li>"),
            std::string::npos)
      << page;
  EXPECT_EQ(page.find("/store/libfoo.so"), std::string::npos);
  // A module no frame needed was not looked for: its status says so, no line more.
  EXPECT_EQ(page.find("module libbaz.so (libbaz.so CCCC0): not looked for"), std::string::npos);
  EXPECT_NE(page.find("data-name=\"libbaz.so\" data-symbols=\"not needed\""), std::string::npos);
}

TEST(WalkPage, FormAsksForTheTokenOnlyWhereTheServerHasTokens) {
  std::string open = renderWalkForm(false, "", 256'000'000);
  std::string guarded = renderWalkForm(true, "too <big>", 256'000'000);
  for (const std::string& page : {open, guarded}) {
    EXPECT_NE(page.find("<form id=\"walk\" class=\"stack\" method=\"post\" action=\"/ui/walk\" "
                        "enctype=\"multipart/form-data\">"),
              std::string::npos);
    EXPECT_NE(page.find("<input type=\"file\" name=\"dump\" required>"), std::string::npos);
    EXPECT_NE(page.find("256.0 MB"), std::string::npos) << page;
  }
  EXPECT_EQ(open.find("name=\"token\""), std::string::npos);
  EXPECT_EQ(open.find("class=\"error\""), std::string::npos);
  EXPECT_NE(guarded.find("<input type=\"password\" name=\"token\" "
                         "autocomplete=\"current-password\">"),
            std::string::npos);
  EXPECT_NE(guarded.find("too &lt;big&gt;"), std::string::npos);
}

} // namespace
} // namespace dumpsyms
