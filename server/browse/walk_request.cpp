// POST /ui/walk: the uploaded dump read and walked with the store's
// symbols, as `symtool stackwalk --store STORE` walks it; never stored.
#include "server/browse/browse_service.h"
#include "server/pages/page_urls.h"
#include "server/pages/walk_page.h"
#include "store/layout/bundled_symbols.h"
#include "walk/stackwalk/symbol_explain.h"

namespace dumpsyms {
namespace {

// The name a module's symbols are filed under: the last component of its
// debug file, whichever separator its system uses.
std::string fileName(const std::string& path) {
  size_t slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

ServerResponse BrowseService::walk(ServerRequest& request, bool token_accepted) {
  if (!token_accepted)
    if (auto refusal = refuseFormToken(request, &BrowseService::walkForm))
      return std::move(*refusal);
  auto field = request.form.find("dump");
  if (field == request.form.end() || field->second.spool_path.empty() || field->second.size == 0)
    return walkForm(400, "Choose a minidump, microdump or core file to walk.");
  const FormField& dump = field->second;
  if (dump.size > settings_.max_dump_bytes)
    return walkForm(413, "The dump is larger than this server walks (" +
                             std::to_string(settings_.max_dump_bytes) + " bytes).");

  auto snapshot = readProcessSnapshot(dump.spool_path);
  std::string name = dump.filename.empty() ? "upload" : dump.filename;
  if (!snapshot) {
    // The reader names the spool file: the person knows it by its own name.
    std::string why = llvm::toString(snapshot.takeError());
    for (size_t at; (at = why.find(dump.spool_path)) != std::string::npos;)
      why.replace(at, dump.spool_path.size(), name);
    return walkForm(422, why);
  }

  auto catalog = catalog_.snapshot();
  if (!catalog)
    return message(503, "The store cannot be read", llvm::toString(catalog.takeError()));
  // An S3 store is searched in its local mirror: the modules of this dump
  // are fetched into it first.
  if (local_.root() != settings_.store_directory)
    for (const SnapshotModule& module : snapshot->modules)
      if (const CatalogEntry* entry =
              (*catalog)->find(fileName(module.debug_file), module.debug_id))
        if (auto fetched = local_.path(*entry); !fetched)
          llvm::consumeError(fetched.takeError()); // the walk says the symbols are missing

  std::lock_guard<std::mutex> one_at_a_time(walk_mutex_);
  WalkOptions options;
  options.index = settings_.index;
  ProcessWalk walked = walkProcess(std::move(*snapshot), {local_.root()}, options);

  WalkPageInput input;
  input.dump_name = name;
  input.dump_size = dump.size;
  input.walk = &walked;
  // Where this server keeps things is its own business: the lines name
  // the store's directory "store" and the symbols installed with the tools
  // (the walker's last store, as for symtool) "bundled".
  const std::pair<std::string, const char*> names[] = {{local_.root(), "store"},
                                                       {bundledSymbolStore(), "bundled"}};
  for (std::string line : explainSymbolSearch(walked)) {
    for (const auto& [directory, shown] : names)
      if (!directory.empty())
        for (size_t at; (at = line.find(directory + "/")) != std::string::npos;)
          line.replace(at, directory.size(), shown);
    input.explain.push_back(std::move(line));
  }
  std::shared_ptr<const CatalogSnapshot> known = *catalog;
  input.module_link = [known](const std::string& debug_file, const DebugId& debug_id) {
    const CatalogEntry* entry = known->find(fileName(debug_file), debug_id);
    return entry ? modulePageUrl(entry->debug_file, entry->debug_id) : std::string();
  };
  return page(200, "Walked " + name, PageTab::Walk, renderWalkResult(input));
}

} // namespace dumpsyms
