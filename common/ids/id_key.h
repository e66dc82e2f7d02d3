// What every spelling of an id reduces to before two are compared. People
// type a debug id as Breakpad writes it (upper-case hex), as a GUID
// ("{5f3a...-...}", any case) or copied with spaces; a store writes it one
// way; the key is the same.
#pragma once

#include <string>
#include <string_view>

namespace dumpsyms {

// `text` upper-cased, without '-', '{', '}' and spaces.
std::string idKey(std::string_view text);

// Whether `key` (an idKey) is hex digits only, and not empty.
bool isHexKey(std::string_view key);

} // namespace dumpsyms
