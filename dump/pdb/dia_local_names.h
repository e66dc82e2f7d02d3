// The names DIA (Microsoft's debug interface, which Breakpad's Windows
// dump_syms reads PDBs with) gives functions with internal linkage: they
// have no public symbol and so no decorated name, and DIA (14.24 and newer)
// builds one from the procedure's type record instead, "static RET
// NAME(PARAMS)", spelling types its own way: keywords kept ("struct
// _XCPT_ACTION *"), qualifiers first ("const char *"), a space before
// each "*" and nothing at all for a function type (a function pointer is
// " *"), parameters joined by ", ".
#pragma once

#include "dump/pdb/type_stream.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/DebugInfo/CodeView/TypeIndex.h>
#include <memory>
#include <optional>
#include <string>

namespace llvm::pdb {
class PDBFile;
}

namespace dumpsyms {

class DiaLocalNames {
public:
  explicit DiaLocalNames(llvm::pdb::PDBFile& file);

  // Nothing when `type` is not a readable LF_PROCEDURE or LF_MFUNCTION or
  // names a type this spelling cannot follow, and in a PDB without type
  // information (whose procedures then go by their own names).
  std::optional<std::string> name(llvm::StringRef name, llvm::codeview::TypeIndex type);

private:
  std::optional<std::string> typeName(llvm::codeview::TypeIndex index, int depth);
  std::optional<std::string> argumentList(llvm::codeview::TypeIndex index, int depth);

  llvm::pdb::PDBFile& file_;
  std::unique_ptr<TypeStream> types_;
  bool tried_ = false;
};

} // namespace dumpsyms
