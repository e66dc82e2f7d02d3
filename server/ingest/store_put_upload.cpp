// PUT to the store path, and the request bodies every PUT shares.
#include "server/ingest/gzip_body.h"
#include "server/ingest/upload_handlers.h"
#include "store/protocols/store_put.h"

#include <llvm/ADT/StringRef.h>

namespace dumpsyms {

std::variant<SpoolFile, UploadRefusal> spoolBody(SymbolPublisher& publisher,
                                                 const ServerRequest& request) {
  if (request.body_path.empty())
    return UploadRefusal{400, "the request has no body"};
  std::string coding = llvm::StringRef(request.header("content-encoding")).trim().lower();
  if (coding.empty() || coding == "identity")
    return publisher.spool(request.body_path);
  if (coding != store_put::kGzipEncoding)
    return UploadRefusal{415, "Content-Encoding '" + coding + "' is not taken (gzip is)"};
  auto spool = SpoolFile::create(publisher.store().spoolDirectory());
  if (!spool)
    return UploadRefusal{500, "the store: " + llvm::toString(spool.takeError())};
  if (auto refusal = inflateGzipBody(request.body_path, *spool, publisher.settings().caps))
    return *refusal;
  return std::move(*spool);
}

ServerResponse handleStorePut(SymbolPublisher& publisher, ServerRequest& request) {
  std::string path = llvm::StringRef(request.path).drop_front(1).str(); // the leading '/'
  if (!llvm::StringRef(path).ends_with(".sym"))
    return handleKeptFilePut(publisher, request, path);
  if (auto refusal = checkClientPath(path))
    return publisher.refuse(*refusal);
  auto body = spoolBody(publisher, request);
  if (auto* refusal = std::get_if<UploadRefusal>(&body))
    return publisher.refuse(*refusal);
  CheckedSymbolFile file{std::move(std::get<SpoolFile>(body)), {}};
  if (auto refusal = publisher.check(file, path))
    return publisher.refuse(*refusal);
  if (auto refusal = checkClaimedPath(path, file.facts))
    return publisher.refuse(*refusal);
  return publishAsPutAnswers(publisher, file);
}

ServerResponse publishAsPutAnswers(SymbolPublisher& publisher, CheckedSymbolFile& file) {
  auto outcome = publisher.publish(file);
  if (auto* refusal = std::get_if<UploadRefusal>(&outcome))
    return publisher.refuse(*refusal);
  bool same = std::get<PublishOutcome>(outcome) == PublishOutcome::Same;
  return ServerResponse::text(same ? store_put::kSame : store_put::kCreated,
                              (same ? "unchanged " : "stored ") + file.facts.store_path);
}

} // namespace dumpsyms
