// What the pages read from a request's arguments, checked: a search's text,
// a page number, an address to look up.
#pragma once

#include "server/pages/module_page.h"

#include <string>
#include <string_view>

namespace dumpsyms {

// At most 200 bytes of `text`, without surrounding white space.
std::string trimmedQuery(std::string_view text);
// "3" -> 3; anything else (or 0, or past a million) -> 1.
size_t pageNumber(std::string_view text);
// "0x1a2b", "1a2b" or "1A2B" -> the address; otherwise an answer with the
// error to show.
LookupAnswer parseLookupAddress(std::string_view text);

} // namespace dumpsyms
