// Ids as the catalog compares them. People type a debug id as Breakpad
// writes it (upper-case hex), as a GUID ("{5f3a...-...}", any case) or
// copied with spaces; a store writes it one way. Both sides are reduced to
// the same key before comparing.
#pragma once

#include <string>
#include <string_view>

namespace dumpsyms {

// `id` without '-', '{', '}' and spaces, upper-cased.
std::string catalogIdKey(std::string_view id);

// Whether `key` (a catalogIdKey) is hex digits only, and not empty.
bool isHexKey(std::string_view key);

// Whether a module of MODULE os `os` is an ELF one, whose INFO CODE_ID is
// its build id: "Linux" (what dump_syms writes for ELF unless told
// otherwise with -o) and "Android" (what Android's tooling passes), any case.
bool isElfModuleOs(std::string_view os);

} // namespace dumpsyms
