// The links pages share, so that each page is reachable at one address
// that can be passed on.
#pragma once

#include "common/ids/debug_id.h"

#include <functional>
#include <string>
#include <string_view>

namespace dumpsyms {

// "/ui/module/<debug_file>/<DEBUG_ID>", each part percent-encoded.
std::string modulePageUrl(std::string_view debug_file, const DebugId& debug_id);
// "/?q=<text>" (and "&page=N" for N > 1).
std::string searchUrl(std::string_view text, size_t page = 1);
// "/ui/modules?letter=<L>" (and "&page=N" for N > 1): the modules A-Z.
std::string moduleListUrl(std::string_view letter, size_t page = 1);
// The "Previous / Page N of M / Next" links of a paged list ("" for one
// page); `url_of` gives a page's address.
std::string pageLinks(size_t page, size_t pages, const std::function<std::string(size_t)>& url_of);
// "/<relative_path>": the store file through the download API.
std::string downloadUrl(std::string_view relative_path);

} // namespace dumpsyms
