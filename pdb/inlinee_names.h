// Names of inlined functions: an S_INLINESITE names its inlinee by an id in
// the IPI stream (LF_FUNC_ID or LF_MFUNC_ID). Spelled as llvm-symbolizer
// spells inline frames: the scope (a namespace string id, or the class type
// of a member) joined by "::" to the function's name.
#pragma once

#include "pdb/type_stream.h"

#include <cstdint>
#include <llvm/DebugInfo/CodeView/TypeIndex.h>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

class InlineeNames {
public:
  explicit InlineeNames(llvm::pdb::PDBFile& file);

  // "<unknown inlinee>" style fallbacks are left to the caller: empty when
  // the id is not a readable function id.
  std::string name(llvm::codeview::TypeIndex inlinee);

  // What kept the IPI or TPI stream from being read (each once).
  const std::vector<std::string>& problems() const { return problems_; }

private:
  TypeStream* stream(uint32_t index, std::unique_ptr<TypeStream>& slot, bool& tried,
                     const char* what);

  llvm::pdb::PDBFile& file_;
  std::unique_ptr<TypeStream> ids_, types_;
  bool tried_ids_ = false, tried_types_ = false;
  std::vector<std::string> problems_;
  std::unordered_map<uint32_t, std::string> cache_;
};

} // namespace dumpsyms
