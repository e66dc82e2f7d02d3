// Unwinds one thread of a core file as Breakpad's processor unwinds a
// minidump: each caller is recovered from the callee by the module's STACK
// CFI rules, else by the frame-pointer chain, else by scanning the stack for
// a word that points into code; each frame says which one found it.
#pragma once

#include "core/core_file.h"
#include "core/core_modules.h"
#include "stackwalk/store_modules.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dumpsyms {

enum class FrameTrust { Context, Cfi, FramePointer, Scan };
const char* trustName(FrameTrust trust); // "context", "cfi", "frame_pointer", "scan"

struct WalkedFrame {
  uint64_t pc = 0; // the instruction (frame 0) or the return address
  // Whether pc is the instruction itself rather than a return address that
  // follows a call: the crashing frame, a signal trampoline (a handler
  // returns to its first byte) and the frame a signal interrupted.
  bool exact = false;
  FrameTrust trust = FrameTrust::Context;
  RegisterValues registers;
  const CoreModule* module = nullptr;     // nullptr: no module maps pc
  const ModuleSymbols* symbols = nullptr; // nullptr: the store has none
};

struct ThreadWalk {
  std::vector<WalkedFrame> frames; // innermost first
  std::string end;                 // why the walk stopped
};

class StackWalker {
public:
  StackWalker(const CoreFile& core, const std::vector<CoreModule>& modules, StoreModules& store);

  ThreadWalk walk(const CoreThread& thread);

  // Why a module has no symbols, for those the walk met.
  const std::map<const CoreModule*, std::string>& missingSymbols() const { return missing_; }

private:
  enum class CfiResult { Found, Outermost, None };
  CfiResult byCfi(const WalkedFrame& callee, WalkedFrame& caller);
  bool byFramePointer(const WalkedFrame& callee, WalkedFrame& caller);
  bool byScan(const WalkedFrame& callee, bool is_context, WalkedFrame& caller);
  void place(WalkedFrame& frame);
  bool isTrampoline(const WalkedFrame& frame) const;
  bool seemsCode(uint64_t address);

  const CoreFile& core_;
  const std::vector<CoreModule>& modules_;
  StoreModules& store_;
  bool x86_64_;
  std::string sp_, pc_, fp_;
  std::map<const CoreModule*, const ModuleSymbols*> symbols_;
  std::map<const CoreModule*, std::string> missing_;
};

} // namespace dumpsyms
