// The code-id index of a store: <code_file>/<CODE_ID>/<code_file>.sym, a
// relative symbolic link to the module's symbol file under its debug file
// and id. Windows dumps written without CodeView records (Wine's, some
// Windows minidump writers) name a module only by its code file and code
// id (TimeDateStamp and SizeOfImage), as Tecken's code-id lookups answer
// them; the walker looks modules without a debug id up here. Store
// listings (and so uploads) see only the symbol files, not the links.
#pragma once

#include "common/ids/code_id.h"

#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// "<code_file>/<code_id>/<code_file>.sym"
std::string codeIdRelativePath(const std::string& code_file, const CodeId& code_id);

// Links the code-id path of the symbol file at `symbol_relative` (a
// store-relative path), replacing what is there, atomically.
llvm::Error linkCodeId(const std::string& store_root, const std::string& code_file,
                       const CodeId& code_id, const std::string& symbol_relative);

} // namespace dumpsyms
