// The compressed files of Windows symbol servers ("app.pd_", "app.dl_"): a
// Microsoft cabinet holding the one file, expanded with Debian's libmspack.
#pragma once

#include <cstdint>
#include <llvm/Support/Error.h>
#include <string>

namespace dumpsyms {

// True when `path` starts like a cabinet ("MSCF").
bool looksLikeCab(const std::string& path);

// Expands the cabinet's file (its only one, or the one named `want` when
// it holds several) to `out_path`, refusing one that says it is larger
// than `limit` bytes. Errors name the cabinet and say what is wrong.
llvm::Error expandCabFile(const std::string& cab_path, const std::string& want,
                          const std::string& out_path, uint64_t limit);

} // namespace dumpsyms
