// The pages' printers: what comes from uploaded files is text, never markup.
#include "server/pages/check_page.h"
#include "server/pages/home_page.h"
#include "server/pages/html.h"
#include "server/pages/module_page.h"
#include "server/pages/page_layout.h"
#include "server/pages/page_urls.h"

#include <gtest/gtest.h>

namespace dumpsyms {
namespace {

const char* kHostile = "f<script>alert(\"x\")</script>&'";

TEST(PagesHtml, EscapesMarkupAndQuotes) {
  EXPECT_EQ(escapeHtml(kHostile), "f&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
  EXPECT_EQ(escapeHtml("caf\xC3\xA9 \xE2\x82\xAC"), "caf\xC3\xA9 \xE2\x82\xAC"); // UTF-8 kept
}

TEST(PagesHtml, ReplacesBytesThatAreNotText) {
  EXPECT_EQ(escapeHtml(std::string("a\0b", 3)), "a\xEF\xBF\xBD"
                                                "b");
  EXPECT_EQ(escapeHtml("\xC3\x28"), "\xEF\xBF\xBD(");                            // a cut sequence
  EXPECT_EQ(escapeHtml("\xC0\xBC"), "\xEF\xBF\xBD\xEF\xBF\xBD");                 // an overlong '<'
  EXPECT_EQ(escapeHtml("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // a surrogate
  EXPECT_EQ(escapeHtml("tab\tnew\nline\x1b"), "tab\tnew\nline\xEF\xBF\xBD");
}

TEST(PagesHtml, NumbersAndLinks) {
  EXPECT_EQ(groupedNumber(0), "0");
  EXPECT_EQ(groupedNumber(1234567), "1,234,567");
  EXPECT_EQ(byteSize(1), "1 byte");
  EXPECT_EQ(byteSize(999), "999 bytes");
  EXPECT_EQ(byteSize(171300000), "171.3 MB");
  EXPECT_EQ(percentOf(1, 0), "-");
  EXPECT_EQ(percentOf(1, 3), "33.3%");
  EXPECT_EQ(utcTime(0), "1970-01-01 00:00 UTC");
  EXPECT_EQ(modulePageUrl("a b/c", DebugId("AB")), "/ui/module/a%20b%2Fc/AB");
  EXPECT_EQ(searchUrl("x&y", 2), "/?q=x%26y&page=2");
  EXPECT_EQ(downloadUrl("a b/ID/a b.sym"), "/a%20b/ID/a%20b.sym");
}

TEST(PagesLayout, OneScriptOfItsOwnAndAPolicy) {
  std::string page = renderPage({kHostile, PageTab::Store, kHostile}, "<p>body</p>");
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_NE(page.find("<script src=\"/ui/static/pages.js\" defer></script>"), std::string::npos);
  bool policy = false;
  for (const auto& [name, value] : pageHeaders())
    policy |= name == "Content-Security-Policy" && value.find("default-src 'none'") == 0;
  EXPECT_TRUE(policy);
}

CatalogEntry hostileEntry() {
  CatalogEntry e;
  e.debug_file = kHostile;
  e.debug_id = DebugId("ABCDEF0123456789ABCDEF0123456789A");
  e.relative_path = std::string(kHostile) + "/" + e.debug_id.str() + "/x.sym";
  e.os = "Linux";
  e.cpu = "x86_64";
  e.code_id = CodeId("\"><b>");
  e.size = 10;
  return e;
}

TEST(PagesHome, PrintsNamesAsText) {
  CatalogSummary summary;
  summary.modules = 1;
  summary.newest.push_back(hostileEntry());
  HomePageInput input;
  input.summary = &summary;
  input.query = kHostile;
  CatalogResults results;
  results.matches.push_back({hostileEntry(), CatalogMatchKind::Name});
  results.total = 1;
  input.results = results;
  std::string body = renderHomePage(input);
  EXPECT_EQ(body.find("<script"), std::string::npos);
  EXPECT_EQ(body.find("<b>"), std::string::npos);
  EXPECT_NE(body.find("data-match=\"name\""), std::string::npos);
}

TEST(PagesModule, PrintsTheSummaryAndTheLookup) {
  Module module;
  module.name = kHostile;
  module.debug_id = DebugId("ID");
  module.cpu = "x86_64";
  Function f;
  f.name = kHostile;
  f.ranges = {{0x1000, 0x1100}};
  f.lines = {{0x1000, 0x80, 3, 0}};
  module.functions.push_back(f);
  module.files = {kHostile};
  ModuleSummary summary;
  summary.debug_file = module.name;
  summary.debug_id = module.debug_id;
  summary.info = {kHostile};
  summary.stats = computeStats(module);
  summary.coverage = computeCoverage(module);
  LookupAnswer answer;
  answer.asked = "0x1010";
  answer.address = 0x1010;
  answer.info.frames.push_back({kHostile, kHostile, 3, false, 0x1000});
  CheckPageInput check;
  check.file_name = kHostile;
  check.summary = &summary;
  check.problems = {{2, kHostile}};
  check.problem_count = 1;
  check.lookup = answer;
  std::string body = renderCheckResult(check);
  EXPECT_EQ(body.find("<script"), std::string::npos);
  EXPECT_NE(body.find("data-count=\"FUNC\" data-value=\"1\""), std::string::npos);
  EXPECT_NE(body.find("data-bytes=\"line\" data-value=\"128\""), std::string::npos);
  EXPECT_NE(body.find("<li class=\"problem\" data-line=\"2\">"), std::string::npos);
  EXPECT_NE(body.find("<rect class=\"func-lines\""), std::string::npos);
  EXPECT_NE(body.find("<rect class=\"func-no-lines\""), std::string::npos);
  EXPECT_NE(body.find("class=\"lookup-frame\""), std::string::npos);
}

} // namespace
} // namespace dumpsyms
