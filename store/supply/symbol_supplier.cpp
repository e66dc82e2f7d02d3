#include "store/supply/symbol_supplier.h"

#include "common/errors/file_error.h"
#include "store/layout/layout.h"
#include "store/layout/store_listing.h"

#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <optional>

namespace dumpsyms {

namespace {

// The symbols of the .sym at `path`, read through its lookup index (built
// on first use, rebuilt when it turns out damaged).
llvm::Expected<std::unique_ptr<ModuleSymbols>> openIndexed(const std::string& path,
                                                           const IndexCacheOptions& index) {
  auto opened = openSymbolIndex(path, index);
  if (!opened)
    return opened.takeError();
  auto rebuild = [path, index]() -> llvm::Expected<std::unique_ptr<IndexFile>> {
    auto fresh = rebuildSymbolIndex(path, index);
    if (!fresh)
      return fresh.takeError();
    return std::move(fresh->index);
  };
  auto lookup = AddressLookup::open(std::move(opened->index), rebuild);
  if (!lookup)
    return lookup.takeError();
  auto symbols = std::make_unique<ModuleSymbols>(std::move(*lookup));
  symbols->corrupt = symbols->lookup.heading().corrupt;
  symbols->path = path;
  symbols->index_source = opened->source;
  symbols->index_note = opened->note;
  return symbols;
}

} // namespace

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
    found->second.emplace(file.debug_id.str(), file.path);
  return found->second;
}

SymbolLookup SymbolSupplier::find(const SymbolKey& key) {
  std::vector<SymbolAttempt> tried;
  SymbolLookup found = search(key, tried);
  found.attempts = std::move(tried);
  return found;
}

SymbolLookup SymbolSupplier::search(const SymbolKey& key, std::vector<SymbolAttempt>& tried) {
  const std::string& name = key.debug_file;
  // (33 zeros name no build, a PE's without a CodeView record: such a
  // module is looked up by its code id, as the store files it)
  const DebugId id = key.debug_id.isNull() ? DebugId() : key.debug_id;
  std::string label = name.empty() ? std::string("module") : name;
  const std::string& code_file = key.code_file;
  // A path that may hold the module's symbols: loaded when it is there.
  auto tryPath = [&](const std::string& path,
                     const std::string& how) -> std::optional<SymbolLookup> {
    if (!llvm::sys::fs::exists(path)) {
      tried.push_back({path, "missing"});
      return std::nullopt;
    }
    return loadTried(path, how, key, tried);
  };
  // The stores' code-id index: <code_file>/<code_id>/<code_file>.sym.
  auto byCodeId = [&]() -> std::optional<SymbolLookup> {
    if (code_file.empty() || key.code_id.empty())
      return std::nullopt;
    SymbolKey by_code{"", DebugId(), code_file, key.code_id};
    for (const std::string& store : stores_)
      for (const std::string& relative : symbolKeyPaths(by_code))
        if (auto found = tryPath(store + "/" + relative, "code id"))
          return found;
    return std::nullopt;
  };
  if (name.empty() && id.empty() && key.code_id.empty())
    return {nullptr, SymbolStatus::Missing, "module without a name or debug id", {}};
  if (!name.empty() && !id.empty())
    for (size_t store = 0; store < stores_.size(); ++store)
      if (auto found = tryPath(symbolFilePath(stores_[store], name, id), "id"))
        return *found;
  if (!id.empty()) {
    for (size_t store = 0; store < stores_.size(); ++store) {
      auto found = pathsById(store).find(id.str());
      if (found != pathsById(store).end())
        return loadTried(found->second, "id under another name", key, tried);
      tried.push_back({stores_[store] + "/*/" + id.str() + "/*.sym", "missing"});
    }
    if (auto found = byCodeId())
      return *found;
    return fromServers(key, label,
                       "no symbols for " + label + " " + id.str() +
                           (stores_.empty() ? std::string() : std::string(" in the store")),
                       tried);
  }
  if (auto found = byCodeId())
    return *found;
  if (!code_file.empty() && !key.code_id.empty()) {
    if (servers_) {
      SymbolLookup found = fromServers(key, label, "", tried);
      if (found.status != SymbolStatus::Missing)
        return found;
    }
  }
  // The dump did not hold the build-id: a name with one build only.
  for (size_t store = 0; store < stores_.size(); ++store) {
    std::vector<DebugId> ids = storedDebugIds(stores_[store], name);
    std::string builds = stores_[store] + "/" + name + "/*";
    if (ids.size() == 1)
      return loadTried(symbolFilePath(stores_[store], name, ids.front()),
                       "name (the dump lacks its build-id)", key, tried);
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

SymbolLookup SymbolSupplier::fromServers(const SymbolKey& key, const std::string& label,
                                         const std::string& local_problem,
                                         std::vector<SymbolAttempt>& tried) {
  if (!servers_)
    return {nullptr, SymbolStatus::Missing, local_problem, {}};
  llvm::Expected<FetchedSymbols> fetched = servers_->find(key, &tried);
  if (!fetched)
    return {nullptr,
            SymbolStatus::Missing,
            (local_problem.empty() ? "no symbols for " + label : local_problem) + "; " +
                llvm::toString(fetched.takeError()),
            {}};
  bool cached = fetched->source == "cache";
  size_t before = tried.size();
  SymbolLookup found =
      loadTried(fetched->path, cached ? "the symbol cache" : "symbol server " + fetched->source,
                key, tried, cached ? "" : fetched->source);
  // The cache path or URL that found it already says so; only what is
  // wrong with the file needs a line of its own.
  if (found.status == SymbolStatus::Loaded && tried.size() > before &&
      tried.back().answer == "found")
    tried.pop_back();
  return found;
}

SymbolLookup SymbolSupplier::loadTried(const std::string& path, const std::string& how,
                                       const SymbolKey& key, std::vector<SymbolAttempt>& tried,
                                       const std::string& url) {
  SymbolLookup found = load(path, how, url);
  std::string answer = "found";
  if (found.status != SymbolStatus::Loaded) {
    // The problem names the file first; the attempt names it already.
    llvm::StringRef problem(found.problem);
    problem.consume_front(path + ": ");
    answer = "found, but unreadable: " + problem.str();
  } else if (const DebugId& own = found.symbols->lookup.heading().debug_id;
             !key.debug_id.empty() && !own.empty() && !own.sameBuild(key.debug_id)) {
    // Used all the same, as Breakpad's processor uses it: the store put it
    // there under this id.
    answer = "found, but its MODULE record has debug id " + own.str();
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
  llvm::Expected<std::unique_ptr<ModuleSymbols>> symbols = openIndexed(path, index_);
  if (!symbols) {
    std::string problem = llvm::toString(symbols.takeError());
    failures_[path] = problem;
    return {nullptr, SymbolStatus::Corrupt, problem, {}};
  }
  (*symbols)->how = how;
  (*symbols)->url = url;
  const ModuleSymbols* kept = (loaded_[path] = std::move(*symbols)).get();
  return {kept, SymbolStatus::Loaded, "", {}};
}

llvm::Expected<const ModuleSymbols*> SymbolSupplier::open(const std::string& sym_path) {
  SymbolLookup found = load(sym_path, "given");
  if (!found.symbols)
    return llvm::createStringError(found.problem);
  return found.symbols;
}

llvm::Expected<const ModuleSymbols*> SymbolSupplier::findNamed(const std::string& module,
                                                               const DebugId& id) {
  llvm::Expected<std::string> path = namedPath(module, id);
  if (!path)
    return path.takeError();
  return open(*path);
}

llvm::Expected<std::string> SymbolSupplier::namedPath(const std::string& module,
                                                      const DebugId& id) {
  // A person names one store (or a .sym file): the first.
  std::string store = stores_.empty() ? std::string() : stores_.front();
  bool is_store = !store.empty() && llvm::sys::fs::is_directory(store);
  bool store_lacks_it =
      store.empty() || (is_store && !module.empty() &&
                        (id.empty() ? storedDebugIds(store, module).empty()
                                    : !llvm::sys::fs::exists(symbolFilePath(store, module, id))));
  if (servers_ && store_lacks_it) {
    std::string what = "the symbol servers";
    if (module.empty())
      return fileError(what, "say which module to fetch with --module NAME");
    if (id.empty())
      return fileError(what, "say which build of " + module + " to fetch with --id ID");
    llvm::Expected<FetchedSymbols> fetched = servers_->find({module, id, "", CodeId()});
    if (!fetched)
      return fileError(module + " " + id.str(), llvm::toString(fetched.takeError()));
    return fetched->path;
  }
  if (store.empty())
    return fileError("the symbol supplier", "no symbol file, store or symbol server given");
  if (!is_store)
    return store; // a .sym file given outright
  if (module.empty())
    return fileError(store, "is a symbol store: say which module with --module NAME");
  if (!id.empty())
    return symbolFilePath(store, module, id);
  std::vector<DebugId> ids = storedDebugIds(store, module);
  if (ids.empty())
    return fileError(store, "holds no module named " + module);
  if (ids.size() > 1) {
    std::string list;
    for (const DebugId& one : ids)
      list += " " + one.str();
    return fileError(store, "holds " + std::to_string(ids.size()) + " builds of " + module +
                                ": say which with --id (" + list.substr(1) + ")");
  }
  return symbolFilePath(store, module, ids.front());
}

} // namespace dumpsyms
