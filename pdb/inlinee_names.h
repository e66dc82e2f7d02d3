// Names of inlined functions: an S_INLINESITE names its inlinee by an id in
// the IPI stream (LF_FUNC_ID or LF_MFUNC_ID). Spelled as llvm-symbolizer
// spells inline frames: the scope (a namespace string id, or the class type
// of a member) joined by "::" to the function's name.
#pragma once

#include <cstdint>
#include <llvm/DebugInfo/CodeView/TypeIndex.h>
#include <string>
#include <unordered_map>

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

private:
  llvm::pdb::PDBFile& file_;
  std::unordered_map<uint32_t, std::string> cache_;
};

} // namespace dumpsyms
