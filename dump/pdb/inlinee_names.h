// Names of inlined functions: an S_INLINESITE names its inlinee by an id in
// the IPI stream (LF_FUNC_ID or LF_MFUNC_ID). Spelled as llvm-symbolizer
// spells inline frames: the scope (a namespace string id, or the class type
// of a member) joined by "::" to the function's name. A cross-module id
// (MSVC /GL) is first resolved to the IPI stream's
// (dump/pdb/cross_module_ids).
#pragma once

#include "dump/pdb/cross_module_ids.h"
#include "dump/pdb/type_stream.h"

#include <cstdint>
#include <llvm/DebugInfo/CodeView/TypeIndex.h>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

class PdbFile;

class InlineeNames {
public:
  explicit InlineeNames(PdbFile& pdb);

  // "<unknown inlinee>" style fallbacks are left to the caller: empty when
  // the id is not a readable function id. `imports` are those of the module
  // whose inline site names `inlinee`.
  std::string name(llvm::codeview::TypeIndex inlinee, const CrossModuleImports& imports);

  // What kept the IPI or TPI stream from being read, or a cross-module id
  // from being resolved (each once).
  const std::vector<std::string>& problems() const { return problems_; }

private:
  TypeStream* stream(uint32_t index, std::unique_ptr<TypeStream>& slot, bool& tried,
                     const char* what);

  // The name of the IPI stream's id `inlinee`.
  std::string globalName(llvm::codeview::TypeIndex inlinee);

  llvm::pdb::PDBFile& file_;
  CrossModuleExports cross_module_;
  std::unique_ptr<TypeStream> ids_, types_;
  bool tried_ids_ = false, tried_types_ = false;
  std::vector<std::string> problems_;
  std::unordered_set<std::string> problems_seen_;
  std::unordered_map<uint32_t, std::string> cache_; // by IPI index
};

} // namespace dumpsyms
