#include "walk/symbolize/frame_resolver.h"

#include "dump/object/demangle.h"

#include <llvm/Support/Path.h>

namespace dumpsyms {

// A module's symbols, and what prelink correction needs of them.
struct StoreFrameResolver::ResolvedModule {
  explicit ResolvedModule(const AddressLookup& found) : lookup(found) {
    for (const std::string& info : lookup.heading().extra_info) {
      llvm::StringRef value(info);
      uint64_t offset;
      if (value.consume_front("PT_DYNAMIC_OFFSET ") && !value.getAsInteger(16, offset))
        dynamic_offset = offset;
    }
  }
  const AddressLookup& lookup; // the supplier's
  std::optional<uint64_t> dynamic_offset;
};

namespace {

std::vector<std::string> storeList(std::string store) {
  if (store.empty())
    return {};
  return {std::move(store)};
}

} // namespace

StoreFrameResolver::StoreFrameResolver(std::string store, std::map<std::string, DebugId> ids,
                                       std::shared_ptr<SymbolServers> servers,
                                       IndexCacheOptions index)
    : ids_(std::move(ids)),
      supplier_(std::make_shared<SymbolSupplier>(storeList(std::move(store)), std::move(servers),
                                                 std::move(index))) {}

StoreFrameResolver::StoreFrameResolver(std::shared_ptr<SymbolSupplier> supplier,
                                       std::map<std::string, DebugId> ids)
    : ids_(std::move(ids)), supplier_(std::move(supplier)) {}

StoreFrameResolver::~StoreFrameResolver() = default;

llvm::Expected<const StoreFrameResolver::ResolvedModule*>
StoreFrameResolver::module(const std::string& name) {
  if (auto found = modules_.find(name); found != modules_.end())
    return found->second.get();
  if (auto failed = failures_.find(name); failed != failures_.end())
    return llvm::createStringError(failed->second);
  auto id = ids_.find(name);
  llvm::Expected<const ModuleSymbols*> loaded =
      supplier_->findNamed(name, id == ids_.end() ? DebugId() : id->second);
  if (!loaded) {
    std::string problem = llvm::toString(loaded.takeError());
    failures_[name] = problem;
    return llvm::createStringError(problem);
  }
  auto resolved = std::make_unique<ResolvedModule>((*loaded)->lookup);
  return (modules_[name] = std::move(resolved)).get();
}

ResolvedFrame StoreFrameResolver::resolve(const FrameLine& frame, bool return_address) {
  ResolvedFrame out;
  out.module = llvm::sys::path::filename(frame.module).str();
  llvm::Expected<const ResolvedModule*> symbols = module(out.module);
  if (!symbols) {
    out.problem = llvm::toString(symbols.takeError());
    return out;
  }
  uint64_t offset;
  if (frame.offset) {
    offset = *frame.offset;
    // Prelinked on the crashing machine: the whole library moved by the
    // difference between where its dynamic section was in the file the
    // process ran and where it is in the file the symbols came from.
    if (frame.dynamic) {
      PrelinkCorrection correction{out.module, *frame.dynamic, (*symbols)->dynamic_offset, 0};
      if ((*symbols)->dynamic_offset)
        correction.shift = static_cast<int64_t>(*(*symbols)->dynamic_offset - *frame.dynamic);
      offset += static_cast<uint64_t>(correction.shift);
      if (observer_ && reported_.emplace(out.module, *frame.dynamic).second)
        observer_(correction);
    }
  } else if (!frame.symbol.empty()) {
    auto found = (*symbols)->lookup.addressOf(frame.symbol);
    if (!found)
      found = (*symbols)->lookup.addressOf(demangle(frame.symbol));
    if (!found) {
      out.problem = out.module + " has no function or symbol named " + frame.symbol;
      return out;
    }
    offset = *found + frame.symbol_offset;
  } else {
    out.problem = "the frame gives no offset in " + out.module;
    return out;
  }
  out.offset = offset;
  out.info = (*symbols)->lookup.lookup(return_address && offset > 0 ? offset - 1 : offset);
  if (out.info.frames.empty() && !out.info.public_name)
    out.problem = "nothing in " + out.module + " covers it";
  return out;
}

} // namespace dumpsyms
