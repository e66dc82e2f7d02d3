// Breakpad v1: sym_upload's multipart form, one .sym per request. Its
// clients take only 200 as stored, so a file already there answers 200 too.
#include "server/ingest/upload_handlers.h"
#include "store/protocols/breakpad_v1.h"

namespace dumpsyms {

namespace {

const FormField* field(const ServerRequest& request, const char* name) {
  auto it = request.form.find(name);
  return it == request.form.end() ? nullptr : &it->second;
}

} // namespace

ServerResponse handleBreakpadV1(SymbolPublisher& publisher, ServerRequest& request) {
  using namespace breakpad_v1;
  const FormField* debug_file = field(request, kDebugFileField);
  const FormField* debug_id = field(request, kDebugIdentifierField);
  const FormField* symbol_file = field(request, kSymbolFileField);
  if (!debug_file || !debug_id || !symbol_file)
    return publisher.refuse({400, std::string("a Breakpad upload needs the form fields ") +
                                      kDebugFileField + ", " + kDebugIdentifierField +
                                      " and the file part " + kSymbolFileField});
  if (symbol_file->spool_path.empty())
    return publisher.refuse({400, std::string(kSymbolFileField) + " is not a file part"});
  auto spooled = publisher.spool(symbol_file->spool_path);
  if (auto* refusal = std::get_if<UploadRefusal>(&spooled))
    return publisher.refuse(*refusal);
  CheckedSymbolFile file{std::move(std::get<SpoolFile>(spooled)), {}};
  if (auto refusal = publisher.check(file, kSymbolFileField))
    return publisher.refuse(*refusal);
  if (auto refusal = checkClaimedModule(debug_file->value, DebugId(debug_id->value), file.facts))
    return publisher.refuse(*refusal);
  auto outcome = publisher.publish(file);
  if (auto* refusal = std::get_if<UploadRefusal>(&outcome))
    return publisher.refuse(*refusal);
  bool same = std::get<PublishOutcome>(outcome) == PublishOutcome::Same;
  return ServerResponse::text(kStored, (same ? "unchanged " : "stored ") + file.facts.store_path);
}

} // namespace dumpsyms
