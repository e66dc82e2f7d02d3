#include "walk/printers/breakpad_words.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace dumpsyms::breakpad_words {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

std::string hex8(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%08" PRIx64, value);
  return text;
}

// The address Breakpad prints a frame at and measures its offsets from:
// x86 and amd64 frames print their return address (their pc), every other
// frame (inlined calls on every CPU) the address it was looked up at.
uint64_t printedAddress(const ResolvedStackFrame& frame, SnapshotCpu cpu) {
  bool returns = cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Amd64;
  return returns && !frame.inlined ? frame.address : frame.instruction;
}

std::string functionName(const ResolvedStackFrame& frame) {
  return frame.inlined && !frame.origin_known ? "<name omitted>" : frame.function;
}

std::string frameText(const ResolvedStackFrame& frame, SnapshotCpu cpu) {
  uint64_t address = printedAddress(frame, cpu);
  if (!frame.module)
    return hex(address);
  std::string module = pathFileName(frame.module->code_file);
  std::string function = functionName(frame);
  if (function.empty())
    return module + " + " + hex(address - frame.module->base);
  if (!frame.file.empty() && frame.line_base)
    return module + "!" + function + " [" + pathFileName(frame.file) + " : " +
           std::to_string(frame.line) + " + " + hex(address - *frame.line_base) + "]";
  return module + "!" + function + " + " + hex(address - frame.function_base.value_or(0));
}

const char* foundBy(FrameTrust trust) {
  switch (trust) {
  case FrameTrust::Context:
    return "given as instruction pointer in context";
  case FrameTrust::Prewalked:
    return "recovered by external stack walker";
  case FrameTrust::Cfi:
    return "call frame info";
  case FrameTrust::CfiScan:
    return "call frame info with scanning";
  case FrameTrust::FramePointer:
    return "previous frame's frame pointer";
  case FrameTrust::Scan:
    return "stack scanning";
  case FrameTrust::Inline:
    return "inline record";
  case FrameTrust::Leaf:
    return "simulating a return from leaf function";
  }
  return "unknown";
}

std::string strip(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != '|' && c != '\n')
      out += c;
  return out;
}

std::vector<const ModuleSymbolStatus*> modulesInBreakpadOrder(const ProcessWalk& walk) {
  std::vector<const ModuleSymbolStatus*> out;
  for (const ModuleSymbolStatus& status : walk.modules)
    out.push_back(&status);
  std::stable_sort(out.begin(), out.end(),
                   [](const ModuleSymbolStatus* a, const ModuleSymbolStatus* b) {
                     return a->module->end() < b->module->end();
                   });
  return out;
}

} // namespace dumpsyms::breakpad_words
