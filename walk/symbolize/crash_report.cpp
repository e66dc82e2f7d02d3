#include "walk/symbolize/crash_report.h"

#include "common/limits/bounded_json.h"
#include "walk/symbolize/crash_symbolizer.h"
#include "walk/symbolize/symbolize_output.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/Support/JSON.h>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

std::optional<SymbolizedReport> symbolizeReportLine(llvm::StringRef line,
                                                    StoreFrameResolver& resolver,
                                                    std::optional<unsigned> keep) {
  if (!line.ltrim().starts_with("{"))
    return std::nullopt;
  auto parsed = parseBoundedJson(line);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  llvm::json::Object* report = parsed->getAsObject();
  auto backtrace = report ? report->getString("backtrace") : std::nullopt;
  if (!backtrace)
    return std::nullopt;
  SymbolizedReport symbolized;
  auto& frames = symbolized.frames;
  CrashSymbolizer symbolizer(resolver);
  llvm::SmallVector<llvm::StringRef, 32> lines;
  backtrace->split(lines, '\n', -1, false);
  std::vector<std::string> texts;
  for (llvm::StringRef frame_line : lines)
    texts.push_back(frame_line.rtrim("\r").str());
  symbolizer.learnLoadAddresses(texts);
  for (llvm::StringRef frame_line : lines) {
    frame_line = frame_line.rtrim("\r");
    frames.push_back({frame_line.str(), symbolizer.line(frame_line)});
  }
  if (keep) {
    // Drop everything up to and including the signal trampoline.
    for (size_t i = 0; i < frames.size(); ++i) {
      const auto& frame = frames[i].second;
      std::string name = !frame                       ? std::string()
                         : frame->info.public_name    ? *frame->info.public_name
                         : frame->info.frames.empty() ? std::string()
                                                      : frame->info.frames.back().function;
      if (isSignalTrampoline(name)) {
        frames.erase(frames.begin(), frames.begin() + static_cast<long>(i) + 1);
        break;
      }
    }
    if (frames.size() > *keep)
      frames.resize(*keep);
  }
  llvm::json::Object out{{"input", line.str()}};
  for (auto& [key, value] : *report)
    if (key != "backtrace")
      out[key] = value;
  llvm::json::Array resolved;
  for (const auto& [text, frame] : frames)
    resolved.push_back(frameJson(text, frame));
  out["backtrace"] = std::move(resolved);
  symbolized.json = std::move(out);
  return symbolized;
}

bool symbolizeReport(llvm::StringRef line, StoreFrameResolver& resolver, bool json,
                     std::optional<unsigned> keep) {
  std::optional<SymbolizedReport> report = symbolizeReportLine(line, resolver, keep);
  if (!report)
    return false;
  if (json) {
    printJson(std::move(report->json));
    return true;
  }
  std::printf("%s\n", line.str().c_str());
  for (const auto& [text, frame] : report->frames)
    printSymbolized("  " + text, frame, false);
  return true;
}

} // namespace dumpsyms
