#include "walk/symbolize/frame_line.h"

#include "common/limits/input_limits.h"

#include <regex>

namespace dumpsyms {

namespace {

uint64_t hexValue(const std::string& text) {
  return std::strtoull(text.c_str(), nullptr, 16);
}

// Each format once, anchored; std::regex is slow to build, fast enough to run.
const std::regex& glibcFrame() {
  static const std::regex re(
      R"(^\s*(.*?)\(([^()+]*)(?:\+(0x[0-9a-fA-F]+))?\)\s*\[(0x[0-9a-fA-F]+)\]\s*$)");
  return re;
}
const std::regex& solarisFrame() {
  static const std::regex re(
      R"(^\s*([^'\s]+)'([^'+\s\[]+)\+(0x[0-9a-fA-F]+)\s*(?:\[(0x[0-9a-fA-F]+)\])?\s*$)");
  return re;
}
const std::regex& solarisStackFrame() {
  static const std::regex re(R"(^\s*(/[^:\s]+):([^+\s]+)\+(0x[0-9a-fA-F]+)\s*$)");
  return re;
}
const std::regex& moduleOffsetFrame() {
  static const std::regex re(
      R"(^\s*(?:(0x[0-9a-fA-F]+):\s*)?(?:(0x[0-9a-fA-F]+):\s*)?(\S+)\s+\+\s+(0x[0-9a-fA-F]+)\s*$)");
  return re;
}

} // namespace

std::optional<FrameLine> parseFrameLine(llvm::StringRef text) {
  if (text.size() > limits::kMaxFrameLine) // no frame line is this long
    return std::nullopt;
  std::string line = text.str();
  std::smatch m;
  FrameLine frame;
  if (std::regex_match(line, m, glibcFrame())) {
    frame.module = m[1];
    if (frame.module.empty())
      return std::nullopt;
    if (m[2].length()) {
      frame.symbol = m[2];
      frame.symbol_offset = m[3].matched ? hexValue(m[3]) : 0;
    } else if (m[3].matched) {
      frame.offset = hexValue(m[3]);
    }
    frame.address = hexValue(m[4]);
    return frame;
  }
  if (std::regex_match(line, m, solarisFrame()) || std::regex_match(line, m, solarisStackFrame())) {
    frame.module = m[1];
    frame.symbol = m[2];
    frame.symbol_offset = hexValue(m[3]);
    // (printstack's pc; the second form has no such group, and a group
    // past the last reads as unmatched)
    if (m.size() > 4 && m[4].matched)
      frame.address = hexValue(m[4]);
    return frame;
  }
  if (std::regex_match(line, m, moduleOffsetFrame())) {
    frame.module = m[3];
    frame.offset = hexValue(m[4]);
    if (m[2].matched)
      frame.dynamic = hexValue(m[2]);
    if (m[1].matched)
      frame.address = hexValue(m[1]);
    return frame;
  }
  return std::nullopt;
}

} // namespace dumpsyms
