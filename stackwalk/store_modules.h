// The symbols of a core's modules, from a symbol store alone: a module is
// found by its name and debug id (the store's own layout), else by its id
// under any name (the core may have mapped it under another file name, or
// have no NT_FILE), else — when the core does not hold its build-id — by
// name when the store has exactly one build of it.
#pragma once

#include "lookup/address_lookup.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

struct ModuleSymbols {
  explicit ModuleSymbols(Module module);

  AddressLookup lookup;
  std::vector<const CfiFrame*> cfi; // by start address
  std::string path;                 // the .sym read
  std::string how;                  // how it was matched: "id", "id under another name", "name"

  // The STACK CFI frame covering `offset`, or nullptr.
  const CfiFrame* cfiAt(uint64_t offset) const;
  // Does a FUNC or PUBLIC cover `offset`, as the processor asks before it
  // takes a scanned word for a return address?
  bool hasCodeAt(uint64_t offset) const;
};

class StoreModules {
public:
  explicit StoreModules(std::string store);
  ~StoreModules();

  // nullptr when the store has no symbols for it; `problem` says why.
  const ModuleSymbols* find(const std::string& name, const std::string& debug_id,
                            std::string& problem);

private:
  const std::map<std::string, std::string>& pathsById();

  std::string store_;
  std::map<std::string, std::unique_ptr<ModuleSymbols>> loaded_; // by .sym path
  std::map<std::string, std::string> failures_;                  // .sym path -> why
  std::unique_ptr<std::map<std::string, std::string>> by_id_;    // debug id -> .sym path
};

} // namespace dumpsyms
