// The symbol-store layout Breakpad's processor (SimpleSymbolSupplier),
// rust-minidump and symbol servers read: <debug file>/<DEBUG_ID>/<name>.sym,
// where <name> is the debug file's name with a ".pdb" extension replaced by
// ".sym" and any other name followed by ".sym". Every tool builds store
// paths here and nowhere else.
#pragma once

#include <string>
#include <vector>

namespace dumpsyms {

// "<debug_file>/<debug_id>/<symbol file name>", with '/' separators.
std::string symbolFileRelativePath(const std::string& debug_file, const std::string& debug_id);

// The same under `store_root`.
std::string symbolFilePath(const std::string& store_root, const std::string& debug_file,
                           const std::string& debug_id);

// Where a symbol file's lookup index lives beside it (symbol_index/):
// "<sym path>.idx". Listings and uploads pass such files over.
std::string symbolIndexPath(const std::string& sym_path);
bool isSymbolIndexPath(const std::string& path);

// The debug ids the store holds a build of `debug_file` under, sorted;
// empty when it holds none.
std::vector<std::string> storedDebugIds(const std::string& store_root,
                                        const std::string& debug_file);

} // namespace dumpsyms
