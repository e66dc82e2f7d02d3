// What an uploader controls, as the pages print it: the first line is what
// a visitor types (a search, an address to look up), the rest a .sym's
// text -- its header catalogued and searched, the whole file validated,
// summarized, looked up and shown as the check page shows it. Whatever the
// bytes, a page is valid UTF-8 and holds no markup but its own: one
// <script> element (the page's own script), no other.
#include "common/limits/input_limits.h"
#include "server/browse/module_summaries.h"
#include "server/browse/page_requests.h"
#include "server/pages/check_page.h"
#include "server/pages/home_page.h"
#include "server/pages/page_layout.h"
#include "store/catalog/catalog_header.h"
#include "symbol_file/analysis/symbol_validate.h"
#include "symbol_file/text/text_reader.h"
#include "tests/fuzz/fuzz_targets.h"

#include <cstdlib>
#include <llvm/Support/ConvertUTF.h>

namespace dumpsyms::fuzz {
namespace {

bool isUtf8(const std::string& text) {
  const auto* at = reinterpret_cast<const llvm::UTF8*>(text.data());
  return llvm::isLegalUTF8String(&at, at + text.size());
}

void checkPage(const std::string& body) {
  std::string page = renderPage({"fuzz", PageTab::None, "fuzz"}, body);
  size_t scripts = 0;
  for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1))
    ++scripts;
  if (scripts != 1 || page.find("<img") != std::string::npos || !isUtf8(page))
    std::abort(); // markup or invalid UTF-8 came through from the input
}

} // namespace

int storePages(const uint8_t* data, size_t size) {
  llvm::StringRef input(reinterpret_cast<const char*>(data), size);
  auto [first, text] = input.split('\n');

  std::vector<CatalogEntry> entries;
  if (auto header = parseSymbolFileHeader(
          text.take_front(std::min<size_t>(text.size(), limits::kSymbolHeaderBytes)))) {
    CatalogEntry entry = catalogEntryOf(*header);
    entry.relative_path = entry.debug_file + "/" + entry.debug_id.str() + "/x.sym";
    entry.size = text.size();
    entries.push_back(entry);
  } else {
    llvm::consumeError(header.takeError());
  }
  CatalogSnapshot catalog(std::move(entries));
  CatalogSummary summary = catalog.summary();
  HomePageInput home;
  home.summary = &summary;
  home.query = trimmedQuery(std::string_view(first.data(), first.size()));
  home.results = catalog.search({home.query, 1, 50});
  checkPage(renderHomePage(home));

  ParsedSymbolFile parsed = readSymbolFile(text);
  ModuleSummary module = summarizeModule(parsed.module, parsed.problems.size());
  CheckPageInput check;
  check.file_name = first.str();
  check.size = text.size();
  check.summary = &module;
  check.problems = validateSymbolText(text);
  check.problem_count = check.problems.size();
  LookupAnswer answer = parseLookupAddress(std::string_view(first.data(), first.size()));
  if (answer.address)
    answer.info = AddressLookup::fromText(text).lookup(*answer.address);
  check.lookup = answer;
  checkPage(renderCheckResult(check));
  return 0;
}

} // namespace dumpsyms::fuzz
