// Resolves frames of crash text against a symbol store: finds the module
// by name (and id, when the store holds several builds), undoes prelinking
// (INFO PT_DYNAMIC_OFFSET against the offset the crashing process logged),
// turns symbol+offset into a module offset, and looks the address up.
#pragma once

#include "store/supply/symbol_supplier.h"
#include "symbol_file/lookup/address_lookup.h"
#include "walk/symbolize/frame_line.h"

#include <functional>
#include <llvm/Support/Error.h>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

namespace dumpsyms {

struct ResolvedFrame {
  std::string module;             // the store's module name
  std::optional<uint64_t> offset; // module-relative, after any prelink correction
  AddressInfo info;               // at offset (or offset - 1 for a return address)
  std::string problem;            // why nothing was found, when nothing was
};

// What the prelink correction did for one module: the PT_DYNAMIC file
// offset the crash log gave, the one its symbol file records (INFO
// PT_DYNAMIC_OFFSET; none in files that lack the record), and the shift
// applied to the module's logged offsets (recorded - logged; 0 when the
// two agree, which is a module that was not prelinked).
struct PrelinkCorrection {
  std::string module;
  uint64_t logged = 0;
  std::optional<uint64_t> recorded;
  int64_t shift = 0;
};

class StoreFrameResolver {
public:
  // `ids`: module name -> debug id, for stores with several builds of one name.
  // `servers`, when given, are asked for what the store lacks ("" store:
  // servers only), by the name and the id `ids` gives.
  StoreFrameResolver(std::string store, std::map<std::string, DebugId> ids,
                     std::shared_ptr<SymbolServers> servers = nullptr,
                     IndexCacheOptions index = {});
  // With a supplier the caller keeps across crashes (the crash inbox's
  // workers), searching one store.
  StoreFrameResolver(std::shared_ptr<SymbolSupplier> supplier, std::map<std::string, DebugId> ids);
  ~StoreFrameResolver();

  // `return_address`: the frame holds where a call returns to, so the call
  // itself is at offset - 1 (as debuggers look it up).
  ResolvedFrame resolve(const FrameLine& frame, bool return_address);

  // Called once for each module and logged PT_DYNAMIC offset that a frame
  // gives, so that a user can see why a frame moved (symbolize -v).
  void onPrelinkCorrection(std::function<void(const PrelinkCorrection&)> observer) {
    observer_ = std::move(observer);
  }

private:
  struct ResolvedModule;
  // The module's symbols, or why it has none (once per name).
  llvm::Expected<const ResolvedModule*> module(const std::string& name);

  std::map<std::string, DebugId> ids_;
  std::shared_ptr<SymbolSupplier> supplier_;
  std::map<std::string, std::unique_ptr<ResolvedModule>> modules_;
  std::map<std::string, std::string> failures_; // module name -> why it cannot be read
  std::function<void(const PrelinkCorrection&)> observer_;
  std::set<std::pair<std::string, uint64_t>> reported_; // (module, logged offset) told the observer
};

} // namespace dumpsyms
