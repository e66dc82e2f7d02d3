// Where a Mach-O binary's dSYM may be: a bundle X.dSYM beside X, a debug
// directory that is a bundle, X.dSYM or X in a debug directory, or any
// bundle in one (the caller keeps the one whose UUID is the binary's). A
// bundle's DWARF file is the one file in X.dSYM/Contents/Resources/DWARF.
#pragma once

#include <llvm/Support/Error.h>
#include <string>
#include <vector>

namespace dumpsyms {

// Whether `path` is a directory laid out as a dSYM bundle.
bool isDsymBundle(const std::string& path);

// The DWARF file of the bundle at `bundle`.
llvm::Expected<std::string> dsymDwarfFile(const std::string& bundle);

// Files that may be `binary`'s dSYM DWARF file, in the order to try them.
std::vector<std::string> dsymCandidates(const std::string& binary,
                                        const std::vector<std::string>& debug_dirs);

} // namespace dumpsyms
