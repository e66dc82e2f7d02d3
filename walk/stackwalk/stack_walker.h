// Unwinds one thread of a process snapshot as Breakpad's processor unwinds
// a minidump: the frame the context gives, then each caller recovered from
// its callee by the CPU's strategies in Breakpad's order (cpu_unwinder.h:
// STACK WIN, STACK CFI, frame pointers, stack scanning), each frame saying
// which one found it. The walk knows nothing of the file the snapshot came
// from.
#pragma once

#include "store/supply/symbol_supplier.h"
#include "walk/snapshot/process_snapshot.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dumpsyms {

// The key the supplier knows `module` by: its debug file (else its code
// file) and debug id, its code file and code id, names without directories.
SymbolKey symbolKeyOf(const SnapshotModule& module);

// How a frame was found, as Breakpad's processor words it (FrameTrust).
enum class FrameTrust { Context, Cfi, CfiScan, FramePointer, Scan, Prewalked, Inline, Leaf };
// "context", "cfi", "cfi_scan", "frame_pointer", "scan", "prewalked", "inline", "leaf"
const char* trustName(FrameTrust trust);

struct WalkedFrame {
  uint64_t pc = 0; // the instruction (frame 0) or the return address
  // Whether pc is the instruction itself rather than a return address that
  // follows a call: the context frame, a signal trampoline (a handler
  // returns to its first byte) and the frame a signal interrupted.
  bool exact = false;
  FrameTrust trust = FrameTrust::Context;
  RegisterValues registers; // those known in this frame
  // arm64: a scanned frame's x29 as Breakpad keeps it (copied from the
  // callee, not known to be right), which its frame-pointer step still uses.
  std::optional<uint64_t> stale_frame_pointer;
  const SnapshotModule* module = nullptr; // nullptr: no module maps pc
  const ModuleSymbols* symbols = nullptr; // nullptr: no symbols for it

  // The address the frame's code is looked up at: pc itself when exact,
  // else inside the call a return address follows (Breakpad's
  // `instruction`: pc - 1 on x86, pc - 2 on arm, pc - 4 on arm64 and riscv,
  // two instructions back on mips). Set by the walker.
  uint64_t instruction = 0;
  uint64_t lookupAddress() const { return instruction; }
};

struct ThreadWalk {
  std::vector<WalkedFrame> frames; // innermost first
  std::string end;                 // why the walk stopped
};

class CpuUnwinder;

struct WalkOptions {
  // Breakpad's processor's rules exactly, for output that must equal its
  // own (--format breakpad, the minidump_stackwalk drop-in): memory read
  // only from the walked thread's stack, scanned words not checked against
  // executable mappings, no special case for signal trampolines, and x86's
  // callee parameter size taken as Breakpad takes it. Off, the walk is
  // Breakpad's with those four corrected (docs/STACKWALK.md).
  bool breakpad_rules = false;
  // Where the symbol files' indexes are cached (symtool --index-cache).
  IndexCacheOptions index;
};

class StackWalker {
public:
  StackWalker(const ProcessSnapshot& snapshot, SymbolSupplier& symbols, WalkOptions options = {});
  ~StackWalker();

  ThreadWalk walk(const SnapshotThread& thread);

  // Why a module has no symbols (or corrupt ones), for those the walk met.
  const std::map<const SnapshotModule*, SymbolLookup>& symbolStatus() const { return status_; }

  // --- for the CPU units ---
  const ProcessSnapshot& snapshot() const { return snapshot_; }
  const WalkOptions& options() const { return options_; }
  unsigned wordSize() const { return word_size_; }
  // A word of the walked thread's memory (under Breakpad's rules, of its
  // stack only).
  std::optional<uint64_t> readWord(uint64_t address) const;
  // Whether `address` is in the memory readWord reads (x86's STACK WIN
  // checks that a recovered EBP points into the stack).
  bool readable(uint64_t address) const { return readWord(address).has_value(); }
  // Finds the module and symbols of frame.instruction.
  void place(WalkedFrame& frame);
  // The module at `address` (under Breakpad's rules, only as far as the
  // dump's module size reaches).
  const SnapshotModule* moduleAt(uint64_t address) const;
  // As the processor asks of a scanned word or a frame-pointer return
  // address: is it in a module (in executable memory, where the dump
  // says) and, where the module has symbols, inside a FUNC or PUBLIC?
  bool seemsCode(uint64_t address);
  // The caller by the callee's STACK CFI rules; nullopt to try the next
  // way. CFI that marks the frame outermost (`.ra: .undef`) sets `done`:
  // the walk ends there.
  std::optional<WalkedFrame> callerByCfi(const WalkedFrame& callee, bool& done);
  // The caller by scanning the stack from the callee's stack pointer (its
  // pc the word found, its stack pointer just above); `found_at` gets the
  // word's address.
  std::optional<WalkedFrame> callerByScan(const WalkedFrame& callee, bool is_context,
                                          uint64_t* found_at = nullptr);
  // Scans the stack from `sp` up for a word that seems code, as Breakpad
  // scans: `words` + 1 slots (by default 40, or 160 from the context
  // frame). `found_at` is where the return address was.
  bool byScan(uint64_t sp, bool is_context, uint64_t& return_address, uint64_t& found_at);
  bool scanWords(uint64_t sp, uint64_t words, uint64_t& return_address, uint64_t& found_at);
  bool isTrampoline(const WalkedFrame& frame) const;
  // In the ELF entry point, _start: no caller.
  bool isEntryPoint(const WalkedFrame& frame) const;

private:
  const ProcessSnapshot& snapshot_;
  SymbolSupplier& symbols_;
  WalkOptions options_;
  const SnapshotThread* thread_ = nullptr; // being walked
  bool outermost_ = false;                 // the CFI said the last frame has no caller
  std::unique_ptr<CpuUnwinder> cpu_;
  unsigned word_size_;
  std::map<const SnapshotModule*, SymbolLookup> status_;
};

} // namespace dumpsyms
