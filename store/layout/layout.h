// The symbol-store layout Breakpad's processor (SimpleSymbolSupplier),
// rust-minidump and symbol servers read: <debug file>/<DEBUG_ID>/<name>.sym,
// where <name> is the debug file's name with a ".pdb" extension replaced by
// ".sym" and any other name followed by ".sym". Every tool builds store
// paths here and nowhere else.
#pragma once

#include "common/ids/build_id.h"
#include "common/ids/code_id.h"
#include "common/ids/debug_id.h"

#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

// "<debug_file>/<debug_id>/<symbol file name>", with '/' separators.
std::string symbolFileRelativePath(const std::string& debug_file, const DebugId& debug_id);

// The same under `store_root`.
std::string symbolFilePath(const std::string& store_root, const std::string& debug_file,
                           const DebugId& debug_id);

// Where a module's symbol file goes in a store: symbolFileRelativePath, or,
// for a null debug id, the code-id path <code_file>/<code_id>/<code_file>.sym
// (store/layout/code_id_index), so that no build's file stands for another's.
std::string moduleRelativePath(const std::string& debug_file, const DebugId& debug_id,
                               const std::string& code_file, const CodeId& code_id);

// Binaries kept beside the symbol files (symstore add --keep-binaries),
// for debuginfod and Microsoft symbol-server clients:
//   <debug_file>/<DEBUG_ID>/<file_name>  an ELF executable (file_name: its
//       name), its separate debug file (<name>.debug), or a PDB (<pdb>);
//   <code_file>/<CODE_ID>/<code_file>    a PE, where SSQP clients ask.
std::string keptFileRelativePath(const std::string& debug_file, const DebugId& debug_id,
                                 const std::string& file_name);
std::string keptFileRelativePath(const std::string& code_file, const CodeId& code_id,
                                 const std::string& file_name);
// debuginfod's index by build id: ".build-id/<first two hex>/<rest>", the
// id in lower-case hex (a dot-directory: listings and uploads pass it over).
// The file there names the kept files of that build (BuildIdEntry).
std::string buildIdIndexRelativePath(const BuildId& build_id);
struct BuildIdEntry {
  std::string executable; // store-relative paths; either may be empty
  std::string debuginfo;
};
// "executable <path>\ndebuginfo <path>\n" (lines for empty paths left out).
std::string formatBuildIdEntry(const BuildIdEntry& entry);
// None unless every line is one of those two with a path
// isSafeRelativePath accepts.
std::optional<BuildIdEntry> parseBuildIdEntry(const std::string& text);
// Whether `path` is a store-relative path a client may name: components
// separated by single '/', none empty, ".", "..", starting with '.', or
// holding '\\', ':' (drive letters) or control characters.
bool isSafeRelativePath(const std::string& path);

// The debug ids the store holds a build of `debug_file` under, sorted;
// empty when it holds none.
std::vector<DebugId> storedDebugIds(const std::string& store_root, const std::string& debug_file);

} // namespace dumpsyms
