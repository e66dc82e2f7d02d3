#include "walk/stackwalk/symbol_supplier.h"

#include "store/layout/layout.h"
#include "store/layout/store_listing.h"
#include "store/supply/symbol_source.h"

#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <optional>

namespace dumpsyms {

bool ModuleSymbols::hasCodeAt(uint64_t offset) const {
  AddressInfo info = lookup.lookup(offset);
  return !info.frames.empty() || info.public_name.has_value();
}

SymbolSupplier::SymbolSupplier(std::vector<std::string> stores,
                               std::shared_ptr<SymbolServers> servers, IndexCacheOptions index)
    : stores_(std::move(stores)), servers_(std::move(servers)), index_(std::move(index)) {}
SymbolSupplier::~SymbolSupplier() = default;

const std::map<std::string, std::string>& SymbolSupplier::pathsById(size_t store) {
  auto [found, added] = by_id_.try_emplace(store);
  if (!added)
    return found->second;
  auto listing = listStore(stores_[store]);
  if (!listing) {
    llvm::consumeError(listing.takeError());
    return found->second;
  }
  for (const StoredSymbolFile& file : listing->files) // sorted: the first name wins
    found->second.emplace(file.debug_id, file.path);
  return found->second;
}

SymbolLookup SymbolSupplier::find(const SnapshotModule& module) {
  std::vector<SymbolAttempt> tried;
  SymbolLookup found = search(module, tried);
  found.attempts = std::move(tried);
  return found;
}

SymbolLookup SymbolSupplier::search(const SnapshotModule& module,
                                    std::vector<SymbolAttempt>& tried) {
  std::string name = pathFileName(module.debug_file.empty() ? module.code_file : module.debug_file);
  // (33 zeros name no build, a PE's without a CodeView record: such a
  // module is looked up by its code id, as the store files it)
  const std::string id = isNullDebugId(module.debug_id) ? std::string() : module.debug_id;
  std::string label = name.empty() ? std::string("module") : name;
  std::string code_file = pathFileName(module.code_file);
  // A path that may hold the module's symbols: loaded when it is there.
  auto tryPath = [&](const std::string& path,
                     const std::string& how) -> std::optional<SymbolLookup> {
    if (!llvm::sys::fs::exists(path)) {
      tried.push_back({path, "missing"});
      return std::nullopt;
    }
    return loadTried(path, how, module, tried);
  };
  // The stores' code-id index: <code_file>/<code_id>/<code_file>.sym.
  auto byCodeId = [&]() -> std::optional<SymbolLookup> {
    if (code_file.empty() || module.code_id.empty())
      return std::nullopt;
    SymbolKey key{"", "", code_file, module.code_id};
    for (const std::string& store : stores_)
      for (const std::string& relative : symbolKeyPaths(key))
        if (auto found = tryPath(store + "/" + relative, "code id"))
          return found;
    return std::nullopt;
  };
  if (name.empty() && id.empty() && module.code_id.empty())
    return {nullptr, SymbolStatus::Missing, "module without a name or debug id", {}};
  if (!name.empty() && !id.empty())
    for (size_t store = 0; store < stores_.size(); ++store)
      if (auto found = tryPath(symbolFilePath(stores_[store], name, id), "id"))
        return *found;
  if (!id.empty()) {
    for (size_t store = 0; store < stores_.size(); ++store) {
      auto found = pathsById(store).find(id);
      if (found != pathsById(store).end())
        return loadTried(found->second, "id under another name", module, tried);
      tried.push_back({stores_[store] + "/*/" + id + "/*.sym", "missing"});
    }
    if (auto found = byCodeId())
      return *found;
    return fromServers(module, label,
                       "no symbols for " + label + " " + id +
                           (stores_.empty() ? std::string() : std::string(" in the store")),
                       tried);
  }
  if (auto found = byCodeId())
    return *found;
  if (!code_file.empty() && !module.code_id.empty()) {
    if (servers_) {
      SymbolLookup found = fromServers(module, label, "", tried);
      if (found.status != SymbolStatus::Missing)
        return found;
    }
  }
  // The dump did not hold the build-id: a name with one build only.
  for (size_t store = 0; store < stores_.size(); ++store) {
    std::vector<std::string> ids = storedDebugIds(stores_[store], name);
    std::string builds = stores_[store] + "/" + name + "/*";
    if (ids.size() == 1)
      return loadTried(symbolFilePath(stores_[store], name, ids.front()),
                       "name (the dump lacks its build-id)", module, tried);
    if (ids.size() > 1) {
      tried.push_back({builds, std::to_string(ids.size()) +
                                   " builds, and the dump lacks the build-id to choose one"});
      return {nullptr,
              SymbolStatus::Missing,
              "the dump lacks " + name + "'s build-id and the store holds " +
                  std::to_string(ids.size()) + " builds of it",
              {}};
    }
    tried.push_back({builds, "missing"});
  }
  return {nullptr, SymbolStatus::Missing, "no symbols for " + name + " in the store", {}};
}

SymbolLookup SymbolSupplier::fromServers(const SnapshotModule& module, const std::string& label,
                                         const std::string& local_problem,
                                         std::vector<SymbolAttempt>& tried) {
  if (!servers_)
    return {nullptr, SymbolStatus::Missing, local_problem, {}};
  SymbolKey key{pathFileName(module.debug_file.empty() ? module.code_file : module.debug_file),
                module.debug_id, pathFileName(module.code_file), module.code_id};
  std::string why;
  auto fetched = servers_->find(key, why, &tried);
  if (!fetched)
    return {nullptr,
            SymbolStatus::Missing,
            (local_problem.empty() ? "no symbols for " + label : local_problem) + "; " + why,
            {}};
  bool cached = fetched->source == "cache";
  size_t before = tried.size();
  SymbolLookup found =
      loadTried(fetched->path, cached ? "the symbol cache" : "symbol server " + fetched->source,
                module, tried, cached ? "" : fetched->source);
  // The cache path or URL that found it already says so; only what is
  // wrong with the file needs a line of its own.
  if (found.status == SymbolStatus::Loaded && tried.size() > before &&
      tried.back().answer == "found")
    tried.pop_back();
  return found;
}

SymbolLookup SymbolSupplier::loadTried(const std::string& path, const std::string& how,
                                       const SnapshotModule& module,
                                       std::vector<SymbolAttempt>& tried, const std::string& url) {
  SymbolLookup found = load(path, how, url);
  std::string answer = "found";
  if (found.status != SymbolStatus::Loaded) {
    // The problem names the file first; the attempt names it already.
    llvm::StringRef problem(found.problem);
    problem.consume_front(path + ": ");
    answer = "found, but unreadable: " + problem.str();
  } else if (const std::string& own = found.symbols->lookup.heading().debug_id;
             !module.debug_id.empty() && !own.empty() &&
             !llvm::StringRef(own).equals_insensitive(module.debug_id)) {
    // Used all the same, as Breakpad's processor uses it: the store put it
    // there under this id.
    answer = "found, but its MODULE record has debug id " + own;
  }
  tried.push_back({path, answer});
  return found;
}

SymbolLookup SymbolSupplier::load(const std::string& path, const std::string& how,
                                  const std::string& url) {
  if (auto done = loaded_.find(path); done != loaded_.end())
    return {done->second.get(), SymbolStatus::Loaded, "", {}};
  if (auto failed = failures_.find(path); failed != failures_.end())
    return {nullptr, SymbolStatus::Corrupt, failed->second, {}};
  auto opened = openSymbols(path, index_);
  if (!opened) {
    std::string problem = llvm::toString(opened.takeError());
    failures_[path] = problem;
    return {nullptr, SymbolStatus::Corrupt, problem, {}};
  }
  auto symbols = std::make_unique<ModuleSymbols>(std::move(opened->lookup));
  symbols->corrupt = symbols->lookup.heading().corrupt;
  symbols->path = path;
  symbols->how = how;
  symbols->url = url;
  const ModuleSymbols* kept = (loaded_[path] = std::move(symbols)).get();
  return {kept, SymbolStatus::Loaded, "", {}};
}

} // namespace dumpsyms
