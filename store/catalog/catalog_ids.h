// Which ids a module's INFO CODE_ID is, by its MODULE os.
#pragma once

#include <string_view>

namespace dumpsyms {

// Whether a module of MODULE os `os` is an ELF one, whose INFO CODE_ID is
// its build id: "Linux" (what dump_syms writes for ELF unless told
// otherwise with -o) and "Android" (what Android's tooling passes), any case.
bool isElfModuleOs(std::string_view os);

} // namespace dumpsyms
