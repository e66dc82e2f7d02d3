// The links pages share, so that each page is reachable at one address
// that can be passed on.
#pragma once

#include "common/ids/debug_id.h"

#include <string>
#include <string_view>

namespace dumpsyms {

// "/ui/module/<debug_file>/<DEBUG_ID>", each part percent-encoded.
std::string modulePageUrl(std::string_view debug_file, const DebugId& debug_id);
// "/?q=<text>" (and "&page=N" for N > 1).
std::string searchUrl(std::string_view text, size_t page = 1);
// "/ui/modules?letter=<L>" (and "&page=N" for N > 1): the modules A-Z.
std::string moduleListUrl(std::string_view letter, size_t page = 1);
// "/<relative_path>": the store file through the download API.
std::string downloadUrl(std::string_view relative_path);

} // namespace dumpsyms
