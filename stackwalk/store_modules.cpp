#include "stackwalk/store_modules.h"

#include "store/layout.h"
#include "store/store_listing.h"
#include "symbol_writer/text_reader.h"

#include <algorithm>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>

namespace dumpsyms {

ModuleSymbols::ModuleSymbols(Module module) : lookup(std::move(module)) {
  for (const CfiFrame& frame : lookup.module().cfi_frames)
    if (!frame.range.empty())
      cfi.push_back(&frame);
  std::stable_sort(cfi.begin(), cfi.end(), [](const CfiFrame* a, const CfiFrame* b) {
    return a->range.start < b->range.start;
  });
}

const CfiFrame* ModuleSymbols::cfiAt(uint64_t offset) const {
  auto after = std::upper_bound(cfi.begin(), cfi.end(), offset,
                                [](uint64_t a, const CfiFrame* f) { return a < f->range.start; });
  if (after == cfi.begin())
    return nullptr;
  const CfiFrame* frame = *std::prev(after);
  return frame->range.contains(offset) ? frame : nullptr;
}

bool ModuleSymbols::hasCodeAt(uint64_t offset) const {
  AddressInfo info = lookup.lookup(offset);
  return !info.frames.empty() || info.public_name.has_value();
}

StoreModules::StoreModules(std::string store) : store_(std::move(store)) {}
StoreModules::~StoreModules() = default;

const std::map<std::string, std::string>& StoreModules::pathsById() {
  if (by_id_)
    return *by_id_;
  by_id_ = std::make_unique<std::map<std::string, std::string>>();
  auto listing = listStore(store_);
  if (!listing) {
    llvm::consumeError(listing.takeError());
    return *by_id_;
  }
  for (const StoredSymbolFile& file : listing->files) // sorted: the first name wins
    by_id_->emplace(file.debug_id, file.path);
  return *by_id_;
}

const ModuleSymbols* StoreModules::find(const std::string& name, const std::string& debug_id,
                                        std::string& problem) {
  std::string path, how;
  if (!name.empty() && !debug_id.empty() &&
      llvm::sys::fs::exists(symbolFilePath(store_, name, debug_id))) {
    path = symbolFilePath(store_, name, debug_id);
    how = "id";
  } else if (!debug_id.empty()) {
    auto found = pathsById().find(debug_id);
    if (found == pathsById().end()) {
      problem = "no symbols for " + (name.empty() ? std::string("module") : name) + " " + debug_id +
                " in the store";
      return nullptr;
    }
    path = found->second;
    how = "id under another name";
  } else if (!name.empty()) {
    // The dump did not hold the build-id: a name with one build only.
    std::vector<std::string> ids = storedDebugIds(store_, name);
    if (ids.size() != 1) {
      problem = ids.empty() ? "no symbols for " + name + " in the store"
                            : "the core lacks " + name + "'s build-id and the store holds " +
                                  std::to_string(ids.size()) + " builds of it";
      return nullptr;
    }
    path = symbolFilePath(store_, name, ids.front());
    how = "name (the core lacks its build-id)";
  } else {
    problem = "module without a name or build-id";
    return nullptr;
  }

  if (auto done = loaded_.find(path); done != loaded_.end())
    return done->second.get();
  if (auto failed = failures_.find(path); failed != failures_.end()) {
    problem = failed->second;
    return nullptr;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  ParsedSymbolFile parsed;
  if (buffer)
    parsed = readSymbolFile((*buffer)->getBuffer());
  if (!buffer || parsed.module.name.empty()) {
    problem = path + ": " + (buffer ? "not a symbol file" : buffer.getError().message());
    failures_[path] = problem;
    return nullptr;
  }
  auto symbols = std::make_unique<ModuleSymbols>(std::move(parsed.module));
  symbols->path = path;
  symbols->how = how;
  return (loaded_[path] = std::move(symbols)).get();
}

} // namespace dumpsyms
