// Walks every thread of a core file with a symbol store and resolves each
// frame (function, file, line, inlined calls expanded): the value symtool
// prints.
#pragma once

#include "core/core_modules.h"
#include "stackwalk/stack_walker.h"

#include <llvm/Support/Error.h>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ResolvedStackFrame {
  uint64_t address = 0;           // the pc, or the return address
  std::string module;             // "" when no module maps it
  std::optional<uint64_t> offset; // module-relative address
  FrameTrust trust = FrameTrust::Context;
  std::string function;         // "" when unknown; a PUBLIC's name when only one covers it
  uint64_t function_offset = 0; // from the PUBLIC, when that is all there is
  bool from_public = false;
  std::string file;
  uint32_t line = 0;
  bool inlined = false; // an inlined call inside the frame that follows
};

struct WalkedThread {
  uint32_t tid = 0;
  int signal = 0;
  bool crashed = false;
  std::vector<ResolvedStackFrame> frames; // innermost first, inlined calls as frames
  std::string end;                        // why the walk stopped
};

struct WalkedCore {
  std::vector<CoreModule> modules;
  std::vector<WalkedThread> threads; // the crashed thread first, then in note order
  // Modules the walk met without symbols, and why ("no symbols for ...").
  std::vector<std::pair<std::string, std::string>> missing_symbols;
  std::vector<std::string> warnings;
};

llvm::Expected<WalkedCore> walkCore(const std::string& core_path, const std::string& store);

// The threads of a core (threads and signals) and the one that crashed.
size_t crashedThread(const std::vector<CoreThread>& threads);

} // namespace dumpsyms
