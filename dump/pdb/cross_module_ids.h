// Cross-module ids. With whole-program optimization (MSVC /GL, LTCG) a
// module's symbols can name an id (an inlinee's LF_FUNC_ID) that another
// module defines: 0x80000000 | (import module << 20) | import index. The
// module's DEBUG_S_CROSSSCOPEIMPORTS subsection lists, per module it imports
// from (named through the /names string table), the ids it imports, as that
// module's local ids; the exporting module's DEBUG_S_CROSSSCOPEEXPORTS maps
// its local ids to the IPI stream's. `llvm-pdbutil dump --xmi --xme` prints
// both tables.
#pragma once

#include <cstdint>
#include <llvm/Support/BinaryStreamRef.h>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace dumpsyms {

class PdbFile;

// One module's DEBUG_S_CROSSSCOPEIMPORTS subsection.
struct CrossModuleImports {
  struct FromModule {
    std::string name;          // the exporting module, as /names spells it
    std::vector<uint32_t> ids; // its local ids, by import index
  };
  std::vector<FromModule> modules; // by import module index
};

// Whether `id` is a cross-module id (to be resolved before any lookup).
inline bool isCrossModuleId(uint32_t id) {
  return (id & 0x80000000u) != 0;
}

// Reads an imports subsection's records; `problem` says why when it cannot
// (none), or why it read only a part (what it returns).
std::optional<CrossModuleImports> readCrossModuleImports(PdbFile& pdb, llvm::BinaryStreamRef data,
                                                         std::string& problem);

// The exporting modules' tables, read once each, for every module's imports.
class CrossModuleExports {
public:
  explicit CrossModuleExports(PdbFile& pdb) : pdb_(pdb) {}

  // The IPI index the cross-module id `id`, met in a module whose imports
  // are `imports`, stands for; none, with `problem` set, when the tables do
  // not resolve it.
  std::optional<uint32_t> resolve(uint32_t id, const CrossModuleImports& imports,
                                  std::string& problem);

private:
  // The exports of the module named `name` (matched without regard to case,
  // as DIA does: /names and the DBI stream spell paths differently).
  const std::unordered_map<uint32_t, uint32_t>* exportsOf(const std::string& name,
                                                          std::string& problem);

  PdbFile& pdb_;
  bool indexed_ = false;
  std::unordered_map<std::string, uint32_t> module_by_name_; // lower-case name -> module index
  std::unordered_map<uint32_t, std::unordered_map<uint32_t, uint32_t>> exports_; // local -> global
};

} // namespace dumpsyms
