#include "walk/symbolize/frame_resolver.h"

#include "dump/object/demangle.h"
#include "store/supply/symbol_source.h"

#include <llvm/Support/Path.h>

namespace dumpsyms {

struct StoreFrameResolver::ModuleSymbols {
  explicit ModuleSymbols(AddressLookup found) : lookup(std::move(found)) {
    for (const std::string& info : lookup.heading().extra_info) {
      llvm::StringRef value(info);
      uint64_t offset;
      if (value.consume_front("PT_DYNAMIC_OFFSET ") && !value.getAsInteger(16, offset))
        dynamic_offset = offset;
    }
  }
  AddressLookup lookup;
  std::optional<uint64_t> dynamic_offset;
};

StoreFrameResolver::StoreFrameResolver(std::string store, std::map<std::string, std::string> ids,
                                       std::shared_ptr<SymbolServers> servers,
                                       IndexCacheOptions index)
    : store_(std::move(store)), ids_(std::move(ids)), servers_(std::move(servers)),
      index_(std::move(index)) {}

StoreFrameResolver::~StoreFrameResolver() = default;

const StoreFrameResolver::ModuleSymbols* StoreFrameResolver::module(const std::string& name,
                                                                    std::string& problem) {
  if (auto found = modules_.find(name); found != modules_.end())
    return found->second.get();
  if (auto failed = failures_.find(name); failed != failures_.end()) {
    problem = failed->second;
    return nullptr;
  }
  auto id = ids_.find(name);
  auto loaded = loadSymbols({store_, name, id == ids_.end() ? "" : id->second, servers_, index_});
  if (!loaded) {
    problem = llvm::toString(loaded.takeError());
    failures_[name] = problem;
    return nullptr;
  }
  auto symbols = std::make_unique<ModuleSymbols>(std::move(loaded->lookup));
  return (modules_[name] = std::move(symbols)).get();
}

ResolvedFrame StoreFrameResolver::resolve(const FrameLine& frame, bool return_address) {
  ResolvedFrame out;
  out.module = llvm::sys::path::filename(frame.module).str();
  const ModuleSymbols* symbols = module(out.module, out.problem);
  if (!symbols)
    return out;
  uint64_t offset;
  if (frame.offset) {
    offset = *frame.offset;
    // Prelinked on the crashing machine: the whole library moved by the
    // difference between where its dynamic section was in the file the
    // process ran and where it is in the file the symbols came from.
    if (frame.dynamic) {
      PrelinkCorrection correction{out.module, *frame.dynamic, symbols->dynamic_offset, 0};
      if (symbols->dynamic_offset)
        correction.shift = static_cast<int64_t>(*symbols->dynamic_offset - *frame.dynamic);
      offset += static_cast<uint64_t>(correction.shift);
      if (observer_ && reported_.emplace(out.module, *frame.dynamic).second)
        observer_(correction);
    }
  } else if (!frame.symbol.empty()) {
    auto found = symbols->lookup.addressOf(frame.symbol);
    if (!found)
      found = symbols->lookup.addressOf(demangle(frame.symbol));
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
  out.info = symbols->lookup.lookup(return_address && offset > 0 ? offset - 1 : offset);
  if (out.info.frames.empty() && !out.info.public_name)
    out.problem = "nothing in " + out.module + " covers it";
  return out;
}

} // namespace dumpsyms
