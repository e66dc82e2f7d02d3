// Breakpad's words for a walk, shared by its human and machine forms: the
// address a frame is printed at, a frame's text, how it was found, hex as
// it prints it, names stripped of the machine form's separators.
#pragma once

#include "walk/stackwalk/process_walk.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms::breakpad_words {

// "0x1f" and "0x0000001f" (at least 8 digits), lower case.
std::string hex(uint64_t value);
std::string hex8(uint64_t value);
// x86 and amd64 frames print their return address (their pc); every other
// frame (inlined calls on every CPU) the address it was looked up at.
uint64_t printedAddress(const ResolvedStackFrame& frame, SnapshotCpu cpu);
// `module!function [file : line + 0xOFF]`, `module!function + 0xOFF`,
// `module + 0xOFF` or `0xADDRESS`, the offset measured from the line,
// function or module start to the printed address.
std::string frameText(const ResolvedStackFrame& frame, SnapshotCpu cpu);
// "given as instruction pointer in context", "call frame info", ...
const char* foundBy(FrameTrust trust);
// Without '|' and newlines (the machine form's separators).
std::string strip(const std::string& text);
// The modules in Breakpad's order: by their last address (its module map
// is keyed so), which is the order by base unless modules overlap.
std::vector<const ModuleSymbolStatus*> modulesInBreakpadOrder(const ProcessWalk& walk);
// An inlined call's name, "<name omitted>" when its origin is unknown.
std::string functionName(const ResolvedStackFrame& frame);

} // namespace dumpsyms::breakpad_words
