// The walk page (/ui/walk): the form that takes a minidump, microdump or
// core, and what `symtool stackwalk` finds in one with the store's
// symbols: the crash, the crashing (requesting) thread first and then the
// others, each frame's module, function, file:line and trust, with a link
// to its module's page; and for modules without symbols, what was looked
// for (the walk's --explain lines).
#pragma once

#include "common/ids/debug_id.h"
#include "walk/stackwalk/process_walk.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dumpsyms {

struct WalkPageInput {
  std::string dump_name; // the uploaded file's name, as the browser sent it
  uint64_t dump_size = 0;
  const ProcessWalk* walk = nullptr;
  std::vector<std::string> explain; // explainSymbolSearch(*walk)
  // The module page to link a module to, "" for none (the store lacks its symbols).
  std::function<std::string(const std::string& debug_file, const DebugId& debug_id)> module_link;
};

// The body (markup for renderPage) of the answer to an uploaded dump.
std::string renderWalkResult(const WalkPageInput& input);

// The body of the form page; `needs_token`: the server has tokens, so the
// form asks for the upload token; `error`: plain text shown above the form
// ("" for none); `max_bytes`: the size cap, shown.
std::string renderWalkForm(bool needs_token, std::string_view error, uint64_t max_bytes);

} // namespace dumpsyms
