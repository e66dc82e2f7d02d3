// Tecken's upload: a zip of <debug_file>/<DEBUG_ID>/<name>.sym entries.
// Every entry is spooled and checked before any is published, and one bad
// entry (an unsafe name, a link, a bomb, a bad .sym, a misfiled one, other
// bytes where a file is) refuses the whole zip.
#include "server/ingest/upload_handlers.h"
#include "server/ingest/upload_zip.h"
#include "store/protocols/tecken.h"

#include <llvm/ADT/StringRef.h>
#include <set>
#include <vector>

namespace dumpsyms {

namespace {

// Each entry into its own spool file.
class SpoolingSink : public ZipEntrySink {
public:
  explicit SpoolingSink(const std::string& directory) : directory_(directory) {}

  std::optional<UploadRefusal> begin(const std::string& name) override {
    if (!llvm::StringRef(name).ends_with(".sym"))
      return UploadRefusal{415, "the zip: entry '" + name + "' is not a .sym file"};
    auto spool = SpoolFile::create(directory_);
    if (!spool)
      return UploadRefusal{500, "the store: " + llvm::toString(spool.takeError())};
    entries.push_back({name, CheckedSymbolFile{std::move(*spool), {}}});
    return std::nullopt;
  }
  std::optional<UploadRefusal> write(llvm::StringRef bytes) override {
    if (llvm::Error error = entries.back().second.spool.write(bytes))
      return UploadRefusal{500, "the store: " + llvm::toString(std::move(error))};
    return std::nullopt;
  }
  std::optional<UploadRefusal> end() override {
    if (llvm::Error error = entries.back().second.spool.close())
      return UploadRefusal{500, "the store: " + llvm::toString(std::move(error))};
    return std::nullopt;
  }

  std::vector<std::pair<std::string, CheckedSymbolFile>> entries;

private:
  std::string directory_;
};

} // namespace

ServerResponse handleTecken(SymbolPublisher& publisher, ServerRequest& request) {
  const FormField* zip = nullptr;
  std::string filename;
  for (const auto& [name, part] : request.form)
    if (!part.spool_path.empty()) {
      zip = &part;
      filename = part.filename.empty() ? name : part.filename;
      break;
    }
  // Tecken takes a form; a zip sent as the whole body is taken as well.
  FormField body;
  if (!zip && request.form.empty() && !request.body_path.empty()) {
    body.spool_path = request.body_path;
    body.size = request.body_size;
    filename = "upload.zip";
    zip = &body;
  }
  if (!zip)
    return publisher.refuse({400, "a Tecken upload is a form with a zip file part"});
  SpoolingSink sink(publisher.store().spoolDirectory());
  if (auto refusal = readUploadZipFile(zip->spool_path, publisher.settings().caps, sink))
    return publisher.refuse(*refusal);
  if (sink.entries.empty())
    return publisher.refuse({400, "the zip holds no files"});
  for (auto& [name, file] : sink.entries) {
    if (auto refusal = publisher.check(file, name))
      return publisher.refuse(*refusal);
    if (auto refusal = checkClaimedPath(name, file.facts))
      return publisher.refuse(*refusal);
  }
  // Two entries for one file (ids differing only in case) would publish one
  // and then meet it: refused before anything is published.
  std::set<std::string> paths;
  for (auto& [name, file] : sink.entries)
    if (!paths.insert(file.facts.store_path).second)
      return publisher.refuse(
          {400, "the zip: two entries are " + file.facts.store_path + " ('" + name + "')"});
  for (auto& entry : sink.entries)
    if (auto refusal = publisher.conflict(entry.second))
      return publisher.refuse(*refusal);
  tecken::UploadAccount account;
  account.filename = filename;
  account.size = zip->size;
  for (auto& [name, file] : sink.entries) {
    auto outcome = publisher.publish(file);
    if (auto* refusal = std::get_if<UploadRefusal>(&outcome))
      return publisher.refuse(*refusal);
    if (std::get<PublishOutcome>(outcome) == PublishOutcome::Same)
      account.skipped_keys.push_back(file.facts.store_path);
    else
      account.uploaded.push_back(file.facts.store_path);
  }
  ServerResponse response;
  response.status = tecken::kCreated;
  response.headers.push_back({"Content-Type", "application/json"});
  response.body = tecken::uploadAnswer(account);
  return response;
}

} // namespace dumpsyms
