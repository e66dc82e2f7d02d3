// Crash reports of the OpenSync kind: a JSON object on one line whose
// "backtrace" string holds frame lines.
#pragma once

#include "walk/symbolize/frame_resolver.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/JSON.h>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

// A report's frames resolved: what `--json` prints for it, and the frames.
struct SymbolizedReport {
  llvm::json::Object json; // the report's fields, "input", and "backtrace" resolved
  std::vector<std::pair<std::string, std::optional<ResolvedFrame>>> frames; // (line, frame)
};

// When `line` is such a report, its frames resolved; with `keep`, only the
// `keep` frames after the signal trampoline stay.
std::optional<SymbolizedReport> symbolizeReportLine(llvm::StringRef line,
                                                    StoreFrameResolver& resolver,
                                                    std::optional<unsigned> keep);

// When `line` is such a report: resolves its frames, prints it (text or
// JSON, the report's fields kept) and returns true. With `keep`, only the
// `keep` frames after the signal trampoline stay.
bool symbolizeReport(llvm::StringRef line, StoreFrameResolver& resolver, bool json,
                     std::optional<unsigned> keep);

} // namespace dumpsyms
