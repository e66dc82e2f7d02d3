#include "walk/symbolize/crash_text.h"

#include "walk/symbolize/crash_report.h"
#include "walk/symbolize/crash_symbolizer.h"
#include "walk/symbolize/symbolize_output.h"

#include <llvm/ADT/SmallVector.h>

namespace dumpsyms {
namespace {

std::string frameName(const std::optional<ResolvedFrame>& frame) {
  if (!frame)
    return "";
  if (frame->info.public_name)
    return *frame->info.public_name;
  return frame->info.frames.empty() ? std::string() : frame->info.frames.back().function;
}

// The frames of one backtrace the crash happened in.
void pickCrashFrames(
    const std::vector<std::pair<std::string, std::optional<ResolvedFrame>>>& frames,
    bool after_trampoline_only, SymbolizedCrashText& out) {
  size_t first = 0;
  if (after_trampoline_only)
    for (size_t i = 0; i < frames.size(); ++i)
      if (isSignalTrampoline(frameName(frames[i].second)))
        first = i + 1;
  for (size_t i = first; i < frames.size(); ++i) {
    if (!frames[i].second)
      continue;
    out.crash_frames.push_back(*frames[i].second);
    out.crash_lines.push_back(parseFrameLine(frames[i].first).value_or(FrameLine{}));
  }
}

} // namespace

SymbolizedCrashText symbolizeCrashText(llvm::StringRef text, StoreFrameResolver& resolver,
                                       std::optional<unsigned> keep) {
  SymbolizedCrashText out;
  CrashSymbolizer symbolizer(resolver);
  std::vector<std::string> backtrace;
  bool picked = false;
  // As symtool symbolize reads a stream: a backtrace (a run of frame
  // lines) is resolved at once, so each frame can use the load addresses
  // the others reveal.
  auto flush = [&] {
    if (backtrace.empty())
      return;
    symbolizer.learnLoadAddresses(backtrace);
    std::vector<std::pair<std::string, std::optional<ResolvedFrame>>> frames;
    for (const std::string& frame : backtrace) {
      std::optional<ResolvedFrame> resolved = symbolizer.line(frame);
      out.lines.push_back(frameJson(frame, resolved));
      frames.push_back({frame, std::move(resolved)});
    }
    if (!picked)
      pickCrashFrames(frames, true, out);
    picked = true;
    backtrace.clear();
  };
  llvm::SmallVector<llvm::StringRef, 64> lines;
  text.split(lines, '\n', -1, true);
  if (!lines.empty() && lines.back().empty())
    lines.pop_back();
  for (llvm::StringRef raw : lines) {
    std::string line = raw.rtrim("\r").str();
    if (parseFrameLine(line)) {
      backtrace.push_back(line);
      continue;
    }
    flush();
    if (std::optional<SymbolizedReport> report = symbolizeReportLine(line, resolver, keep)) {
      if (!picked)
        pickCrashFrames(report->frames, !keep, out);
      picked = true;
      out.lines.push_back(std::move(report->json));
      continue;
    }
    out.lines.push_back(frameJson(line, symbolizer.line(line)));
  }
  flush();
  return out;
}

} // namespace dumpsyms
