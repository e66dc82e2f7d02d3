// How a walked process is printed. The walk's result
// (walk/stackwalk/process_walk.h) is read, never changed: no printer walks.
//   text              ours, for people: a debugger-like backtrace per thread
//   json              ours, for programs (threads, frames, modules, the crash)
//   breakpad          Breakpad's minidump_stackwalk human output, byte for byte
//   breakpad-machine  its -m pipe-delimited output
//   rust-minidump     rust-minidump's minidump-stackwalk --json
#pragma once

#include "walk/stackwalk/process_walk.h"

#include <cstdio>
#include <llvm/Support/JSON.h>
#include <optional>
#include <string>

namespace dumpsyms {

// "0x7f12ab" (lower case, no padding), as our forms write addresses.
std::string hexAddress(uint64_t value);

void printWalkText(const ProcessWalk& walk, std::FILE* out);
void printWalkJson(const ProcessWalk& walk, std::FILE* out);
// The document printWalkJson prints (the crash inbox keeps it).
llvm::json::Value walkJson(const ProcessWalk& walk);

struct BreakpadPrintOptions {
  bool requesting_thread_only = false; // -c
  std::optional<int> thread_index;     // -t N
  bool brief = false;                  // -b
  bool stack_contents = false;         // -s
};
void printWalkBreakpad(const ProcessWalk& walk, const BreakpadPrintOptions& options,
                       std::FILE* out);
void printWalkBreakpadMachine(const ProcessWalk& walk, std::FILE* out);
void printWalkRustMinidump(const ProcessWalk& walk, std::FILE* out);

} // namespace dumpsyms
