// POST /ui/check: the uploaded .sym validated, summarized, looked up and
// diffed, never stored.
#include "server/browse/browse_service.h"
#include "server/browse/page_requests.h"
#include "server/pages/check_page.h"
#include "server/pages/page_urls.h"
#include "symbol_file/analysis/symbol_diff.h"
#include "symbol_file/analysis/symbol_validate.h"
#include "symbol_file/text/text_reader.h"

#include <llvm/Support/MemoryBuffer.h>

namespace dumpsyms {
namespace {

// How many problems a page lists (a file of garbage has one a line).
constexpr size_t kProblemsShown = 1000;

const FormField* fileField(const ServerRequest& request, const char* name) {
  auto it = request.form.find(name);
  if (it == request.form.end() || it->second.spool_path.empty() || it->second.size == 0)
    return nullptr;
  return &it->second;
}

std::string shownName(const FormField& field, const char* fallback) {
  return field.filename.empty() ? fallback : field.filename;
}

} // namespace

ServerResponse BrowseService::check(ServerRequest& request, bool token_accepted) {
  if (!token_accepted)
    if (auto refusal = refuseFormToken(request, &BrowseService::checkForm))
      return std::move(*refusal);
  const FormField* sym = fileField(request, "sym");
  if (!sym)
    return checkForm(400, "Choose a symbol file to check.");
  const FormField* other = fileField(request, "other");
  for (const FormField* field : {sym, other})
    if (field && field->size > settings_.max_sym_bytes)
      return checkForm(413, shownName(*field, "the file") + " is larger than this server checks (" +
                                std::to_string(settings_.max_sym_bytes) + " bytes).");

  auto read = [](const FormField& field) {
    return llvm::MemoryBuffer::getFile(field.spool_path, /*IsText=*/false,
                                       /*RequiresNullTerminator=*/false);
  };
  auto text = read(*sym);
  if (!text)
    return checkForm(500, "The upload could not be read back: " + text.getError().message());
  llvm::StringRef bytes = (*text)->getBuffer();

  std::lock_guard<std::mutex> one_at_a_time(upload_parse_mutex_);
  CheckPageInput input;
  input.file_name = shownName(*sym, "upload.sym");
  input.size = bytes.size();
  std::vector<ValidationProblem> problems = validateSymbolText(bytes);
  input.problem_count = problems.size();
  if (problems.size() > kProblemsShown)
    problems.resize(kProblemsShown);
  input.problems = std::move(problems);

  ParsedSymbolFile parsed = readSymbolFile(bytes);
  ModuleSummary summary = summarizeModule(parsed.module, parsed.problems.size());
  input.summary = &summary;

  auto address = request.form.find("address");
  if (address != request.form.end() && !trimmedQuery(address->second.value).empty()) {
    LookupAnswer answer = parseLookupAddress(address->second.value);
    if (answer.address)
      answer.info = AddressLookup::fromText(bytes).lookup(*answer.address);
    input.lookup = std::move(answer);
  }

  if (other) {
    auto other_text = read(*other);
    if (!other_text)
      return checkForm(500, "The second upload could not be read back: " +
                                other_text.getError().message());
    ParsedSymbolFile other_parsed = readSymbolFile((*other_text)->getBuffer());
    input.other_name = shownName(*other, "other.sym");
    input.diff = diffSymbols(parsed.module, other_parsed.module);
  }

  if (auto catalog = catalog_.snapshot()) {
    if (const CatalogEntry* stored = (*catalog)->find(summary.debug_file, summary.debug_id))
      input.stored_page = modulePageUrl(stored->debug_file, stored->debug_id);
  } else {
    llvm::consumeError(catalog.takeError());
  }
  return page(200, "Checked " + input.file_name, PageTab::Check, renderCheckResult(input));
}

} // namespace dumpsyms
