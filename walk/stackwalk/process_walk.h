// Walks every thread of a process snapshot with symbol stores and resolves
// each frame (function, file, line, inlined calls as frames of their own,
// the bases Breakpad's offsets are measured from): the value every printer
// reads. The snapshot is kept with the result, which points into it.
#pragma once

#include "walk/snapshot/process_snapshot.h"
#include "walk/stackwalk/stack_walker.h"

#include <llvm/Support/Error.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dumpsyms {

struct ResolvedStackFrame {
  uint64_t address = 0;     // the pc, or the return address
  uint64_t instruction = 0; // where the frame's code was looked up (Breakpad's instruction)
  const SnapshotModule* module = nullptr; // nullptr when no module maps it
  bool unloaded = false;                  // `module` is one the process had unloaded
  std::string module_name;                // the code file's name; "" without a module
  std::optional<uint64_t> offset;         // address - module base
  FrameTrust trust = FrameTrust::Context;
  std::string function;                  // "" when unknown; a PUBLIC's name when only one covers it
  std::optional<uint64_t> function_base; // absolute: the FUNC, inlined range or PUBLIC start
  bool from_public = false;
  std::string file; // "" when unknown
  uint32_t line = 0;
  std::optional<uint64_t> line_base; // absolute start of the line record
  bool inlined = false;              // an inlined call inside the frame that follows
  RegisterValues registers;          // those known in the physical frame; none for inlined calls
  bool origin_known = true;          // an inlined call whose INLINE_ORIGIN the file names
};

struct WalkedThread {
  uint32_t tid = 0;
  std::string name;
  int signal = 0;
  bool crashed = false;    // the crash's thread
  bool requesting = false; // the thread the dump was taken for (the crashed one, if any)
  std::vector<ResolvedStackFrame> frames; // innermost first, inlined calls as frames
  std::string end;                        // why the walk stopped
  const SnapshotThread* source = nullptr;
};

struct ModuleSymbolStatus {
  const SnapshotModule* module = nullptr;
  SymbolStatus status = SymbolStatus::Missing;
  std::string problem;    // why not loaded
  std::string path;       // the .sym read
  bool corrupt = false;   // loaded, with records the parser could not read
  bool walked = false;    // a walked frame is in it (Breakpad warns only for those)
  bool looked_up = false; // the walk asked for its symbols (status says nothing otherwise)
  const ModuleSymbols* symbols = nullptr; // when loaded (kept by the walk's supplier)
  std::vector<SymbolAttempt> attempts;    // where its symbols were looked for, in order
};

struct ProcessWalk {
  std::shared_ptr<const ProcessSnapshot> snapshot;
  // In the file's thread order, without the thread that wrote the dump
  // (BreakpadInfo's dump thread): Breakpad's thread numbers are these
  // indexes.
  std::vector<WalkedThread> threads;
  std::optional<size_t> requesting; // index of the requesting thread
  bool crashed = false;             // the file has a crash (an Exception stream, a fatal signal)
  std::vector<ModuleSymbolStatus> modules;            // in snapshot->modules order
  std::vector<const SnapshotModule*> walked_unloaded; // unloaded modules frames are in
  bool symbols_given = false;                         // any store was given
  std::shared_ptr<SymbolSupplier> supplier;           // keeps the symbols the walk loaded
};

// The threads in the order our forms print them: the requesting thread
// first, then the others in the file's order.
std::vector<const WalkedThread*> requestingFirst(const ProcessWalk& walk);

// Reads a minidump, an ELF core or a log holding a microdump, whichever the
// file is.
llvm::Expected<ProcessSnapshot> readProcessSnapshot(const std::string& path);

// Symbols come from `stores` (searched in order), then from `servers`.
ProcessWalk walkProcess(ProcessSnapshot snapshot, const std::vector<std::string>& stores,
                        WalkOptions options = {}, std::shared_ptr<SymbolServers> servers = nullptr);

// The same with a supplier the caller keeps across walks (the crash inbox's
// workers): the symbol files it opened for one crash serve the next. It
// must search walkStores() of the stores.
ProcessWalk walkProcess(ProcessSnapshot snapshot, std::shared_ptr<SymbolSupplier> supplier,
                        WalkOptions options = {});

// The stores a walk searches: `stores`, then the templates installed with
// the tools (old 32-bit kernels' linux-gate.so), as Breakpad's processor
// finds them in its symbol path.
std::vector<std::string> walkStores(std::vector<std::string> stores);

} // namespace dumpsyms
