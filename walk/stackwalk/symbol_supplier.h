// The symbols of a snapshot's modules, from symbol stores (searched in the
// order given, as Breakpad's processor searches its symbol paths): a module
// is found by its debug file and debug id (the store's layout, with the
// `.pdb` -> `.sym` rule), else by its id under any name (a core may have
// mapped the file under another name), else -- when the dump does not hold
// its id -- by name when the store has exactly one build of it. Each module
// is loaded once; its status says whether its symbols loaded, were missing
// or were corrupt.
#pragma once

#include "store/symbol_servers/symbol_attempt.h"
#include "store/symbol_servers/symbol_servers.h"
#include "symbol_file/index/index_cache.h"
#include "symbol_file/lookup/address_lookup.h"
#include "walk/snapshot/process_snapshot.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ModuleSymbols {
  explicit ModuleSymbols(AddressLookup found) : lookup(std::move(found)) {}

  AddressLookup lookup;
  std::string path; // the .sym read
  std::string how;  // how it was matched: "id", "id under another name", "name"
  std::string url;  // the symbol server URL it was fetched from in this run; "" otherwise
  // Lines the parser could not read (INLINE records aside), which make
  // Breakpad's processor call the symbols corrupt; they are used anyway.
  bool corrupt = false;

  // The STACK CFI frame covering `offset`.
  std::optional<CfiFrame> cfiAt(uint64_t offset) const { return lookup.cfiAt(offset); }
  // The STACK WIN record of `type` (4: FrameData, 0: FPO) covering
  // `offset`; of several, the one starting last.
  std::optional<StackWinRecord> stackWinAt(uint64_t offset, uint32_t type) const {
    return lookup.stackWinAt(offset, type);
  }
  // Does a FUNC or PUBLIC cover `offset`, as the processor asks before it
  // takes a scanned word for a return address?
  bool hasCodeAt(uint64_t offset) const;
};

enum class SymbolStatus { Loaded, Missing, Corrupt };

struct SymbolLookup {
  const ModuleSymbols* symbols = nullptr; // nullptr unless Loaded
  SymbolStatus status = SymbolStatus::Missing;
  std::string problem; // why not, when not loaded
  // Every store path, cache path and URL tried for the module, in order,
  // with what each answered (--explain prints them).
  std::vector<SymbolAttempt> attempts;
};

class SymbolSupplier {
public:
  explicit SymbolSupplier(std::vector<std::string> stores,
                          std::shared_ptr<SymbolServers> servers = nullptr,
                          IndexCacheOptions index = {});
  ~SymbolSupplier();

  SymbolLookup find(const SnapshotModule& module);

private:
  SymbolLookup load(const std::string& path, const std::string& how, const std::string& url = "");
  // load(), with what the file answered added to `tried`: found, found but
  // unreadable, found with another debug id in its MODULE record.
  SymbolLookup loadTried(const std::string& path, const std::string& how,
                         const SnapshotModule& module, std::vector<SymbolAttempt>& tried,
                         const std::string& url = "");
  const std::map<std::string, std::string>& pathsById(size_t store);

  SymbolLookup search(const SnapshotModule& module, std::vector<SymbolAttempt>& tried);
  SymbolLookup fromServers(const SnapshotModule& module, const std::string& label,
                           const std::string& local_problem, std::vector<SymbolAttempt>& tried);

  std::vector<std::string> stores_;
  std::shared_ptr<SymbolServers> servers_;
  IndexCacheOptions index_;
  std::map<std::string, std::unique_ptr<ModuleSymbols>> loaded_; // by .sym path
  std::map<std::string, std::string> failures_;                  // .sym path -> why
  std::map<size_t, std::map<std::string, std::string>> by_id_;   // store -> debug id -> .sym path
};

} // namespace dumpsyms
