// Crash reports of the OpenSync kind: a JSON object on one line whose
// "backtrace" string holds frame lines.
#pragma once

#include "walk/symbolize/frame_resolver.h"

#include <llvm/ADT/StringRef.h>
#include <optional>

namespace dumpsyms {

// When `line` is such a report: resolves its frames, prints it (text or
// JSON, the report's fields kept) and returns true. With `keep`, only the
// `keep` frames after the signal trampoline stay.
bool symbolizeReport(llvm::StringRef line, StoreFrameResolver& resolver, bool json,
                     std::optional<unsigned> keep);

} // namespace dumpsyms
