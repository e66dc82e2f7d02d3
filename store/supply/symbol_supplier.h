// Where a module's symbols come from, for every reader of symbols: the
// walker (and so the Breakpad drop-ins and the server's walk page),
// symtool's lookups and symbolize, and the server's module pages. The
// stores given are searched in order, as Breakpad's processor searches its
// symbol path; then the symbol servers, through their cache.
//
// A module is asked for by its key (a walker's question: debug file and id,
// code file and id), by its name (a person's: and its id when a store holds
// several builds), or a .sym is given outright. Each file is opened once,
// through its lookup index (symbol_file/index/), and kept while the
// supplier lives.
#pragma once

#include "store/symbol_servers/symbol_attempt.h"
#include "store/symbol_servers/symbol_servers.h"
#include "symbol_file/index/index_cache.h"
#include "symbol_file/lookup/address_lookup.h"

#include <llvm/Support/Error.h>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ModuleSymbols {
  explicit ModuleSymbols(AddressLookup found) : lookup(std::move(found)) {}

  AddressLookup lookup;
  std::string path;         // the .sym read
  std::string how;          // how it was matched: "id", "id under another name", "name"
  std::string url;          // the symbol server URL it was fetched from in this run; "" otherwise
  std::string index_source; // where its index came from: "beside", "cache" or "built"
  std::string index_note;   // about the index, for -v ("" when nothing to say)
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

  // By the module's key: its debug file and id in the stores' layout (the
  // `.pdb` -> `.sym` rule), else its id under any name (a core may have
  // mapped the file under another name), else its code-id path, else the
  // servers, else -- when the key holds no id -- its name when a store has
  // exactly one build of it. The attempts say where it was looked for.
  SymbolLookup find(const SymbolKey& key);

  // By the name a person gives: `module` in the first store (`id`, when it
  // holds several builds of it, says which; a .sym file given as the store
  // is opened as it is), else from the servers. Errors say what to give
  // ("say which with --id ..."), naming the store.
  llvm::Expected<const ModuleSymbols*> findNamed(const std::string& module, const DebugId& id);

  // A .sym given outright.
  llvm::Expected<const ModuleSymbols*> open(const std::string& sym_path);

  // Symbol files opened so far (a supplier kept across walks is renewed
  // past a bound).
  size_t openedFiles() const { return loaded_.size(); }

private:
  SymbolLookup load(const std::string& path, const std::string& how, const std::string& url = "");
  // load(), with what the file answered added to `tried`: found, found but
  // unreadable, found with another debug id in its MODULE record.
  SymbolLookup loadTried(const std::string& path, const std::string& how, const SymbolKey& key,
                         std::vector<SymbolAttempt>& tried, const std::string& url = "");
  const std::map<std::string, std::string>& pathsById(size_t store);

  SymbolLookup search(const SymbolKey& key, std::vector<SymbolAttempt>& tried);
  SymbolLookup fromServers(const SymbolKey& key, const std::string& label,
                           const std::string& local_problem, std::vector<SymbolAttempt>& tried);
  llvm::Expected<std::string> namedPath(const std::string& module, const DebugId& id);

  std::vector<std::string> stores_;
  std::shared_ptr<SymbolServers> servers_;
  IndexCacheOptions index_;
  std::map<std::string, std::unique_ptr<ModuleSymbols>> loaded_; // by .sym path
  std::map<std::string, std::string> failures_;                  // .sym path -> why
  std::map<size_t, std::map<std::string, std::string>> by_id_;   // store -> debug id -> .sym path
};

} // namespace dumpsyms
