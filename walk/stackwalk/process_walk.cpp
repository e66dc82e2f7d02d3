#include "walk/stackwalk/process_walk.h"

#include "common/errors/file_error.h"
#include "store/layout/bundled_symbols.h"
#include "walk/core/core_snapshot.h"
#include "walk/microdump/microdump_snapshot.h"
#include "walk/minidump/minidump_snapshot.h"

#include <algorithm>
#include <llvm/Support/MemoryBuffer.h>
#include <set>

namespace dumpsyms {

namespace {

// One walked frame as the frames a reader sees: its inlined calls first
// (innermost first), then the frame itself.
std::vector<ResolvedStackFrame> resolve(const WalkedFrame& frame, const ProcessSnapshot& process) {
  ResolvedStackFrame base;
  base.address = frame.pc;
  base.instruction = frame.instruction;
  base.trust = frame.trust;
  base.registers = frame.registers;
  if (!frame.module) {
    // Code no loaded module covers may be a module's the process unloaded:
    // it names the frame (there are no symbols for it).
    if (const SnapshotModule* unloaded = process.unloadedModuleAt(frame.instruction)) {
      base.module = unloaded;
      base.unloaded = true;
      base.module_name = pathFileName(unloaded->code_file);
      base.offset = frame.pc - unloaded->base;
    }
    return {base};
  }
  base.module = frame.module;
  base.module_name = pathFileName(frame.module->code_file);
  base.offset = frame.pc - frame.module->base;
  if (!frame.symbols)
    return {base};
  uint64_t module_base = frame.module->base;
  AddressInfo info = frame.symbols->lookup.lookup(frame.instruction - module_base);
  if (info.frames.empty()) {
    if (info.public_name) {
      base.function = *info.public_name;
      base.function_base = frame.instruction - info.public_offset;
      base.from_public = true;
    }
    return {base};
  }
  std::vector<ResolvedStackFrame> out;
  for (const SourceFrame& source : info.frames) {
    ResolvedStackFrame one = base;
    one.function = source.function;
    one.file = source.file;
    one.line = source.line;
    one.inlined = source.inlined;
    one.function_base = module_base + source.start;
    if (info.line_start)
      one.line_base = module_base + *info.line_start;
    if (source.inlined) {
      one.registers.clear();
      one.trust = FrameTrust::Inline;
      one.origin_known = !source.function.empty();
    }
    out.push_back(std::move(one));
  }
  return out;
}

} // namespace

std::vector<const WalkedThread*> requestingFirst(const ProcessWalk& walk) {
  std::vector<const WalkedThread*> order;
  if (walk.requesting)
    order.push_back(&walk.threads[*walk.requesting]);
  for (size_t i = 0; i < walk.threads.size(); ++i)
    if (!walk.requesting || i != *walk.requesting)
      order.push_back(&walk.threads[i]);
  return order;
}

llvm::Expected<ProcessSnapshot> readProcessSnapshot(const std::string& path) {
  auto head = llvm::MemoryBuffer::getFileSlice(path, 4, 0, /*IsVolatile=*/false);
  if (!head) {
    // Shorter than 4 bytes, or unreadable: say which.
    auto whole = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!whole)
      return fileError(path, "cannot read it: " + whole.getError().message());
    return fileError(path, "is neither a minidump, an ELF core file nor a microdump (" +
                               std::to_string((*whole)->getBufferSize()) + " bytes)");
  }
  llvm::StringRef magic = (*head)->getBuffer();
  if (magic == "MDMP")
    return readMinidumpSnapshot(path);
  if (magic == "\x7f"
               "ELF")
    return readCoreSnapshot(path);
  // A microdump is text: in a log, maybe far into it.
  auto whole = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (whole && (*whole)->getBuffer().contains("-----BEGIN BREAKPAD MICRODUMP-----"))
    return parseMicrodumpSnapshot(std::move(*whole), path);
  return fileError(path, "is neither a minidump (MDMP), an ELF core file nor a log holding a "
                         "microdump");
}

std::vector<std::string> walkStores(std::vector<std::string> stores) {
  if (std::string bundled = bundledSymbolStore(); !bundled.empty())
    stores.push_back(bundled);
  return stores;
}

ProcessWalk walkProcess(ProcessSnapshot snapshot, const std::vector<std::string>& stores,
                        WalkOptions options, std::shared_ptr<SymbolServers> servers) {
  bool given = !stores.empty() || servers;
  auto supplier =
      std::make_shared<SymbolSupplier>(walkStores(stores), std::move(servers), options.index);
  ProcessWalk out = walkProcess(std::move(snapshot), std::move(supplier), std::move(options));
  out.symbols_given = given;
  return out;
}

ProcessWalk walkProcess(ProcessSnapshot snapshot, std::shared_ptr<SymbolSupplier> supplier,
                        WalkOptions options) {
  ProcessWalk out;
  auto owned = std::make_shared<const ProcessSnapshot>(std::move(snapshot));
  out.snapshot = owned;
  const ProcessSnapshot& process = *owned;
  out.crashed = process.crash.has_value();
  out.symbols_given = true;
  // The thread the dump is for: the crash's, else the one Breakpad's
  // client names as having asked for it.
  std::optional<uint32_t> requesting =
      process.crash ? std::optional(process.crash->thread_id) : process.requesting_thread_id;

  out.supplier = std::move(supplier);
  StackWalker walker(process, *out.supplier, options);
  for (const SnapshotThread& thread : process.threads) {
    if (process.dump_thread_id && thread.id == *process.dump_thread_id &&
        !(requesting && *requesting == thread.id))
      continue; // the thread that wrote the dump: its stack is the writer's
    WalkedThread walked;
    walked.tid = thread.id;
    walked.name = thread.name;
    walked.signal = thread.signal;
    walked.source = &thread;
    if (requesting && thread.id == *requesting && !out.requesting) {
      walked.requesting = true;
      walked.crashed = out.crashed;
      out.requesting = out.threads.size();
    }
    ThreadWalk walk = walker.walk(thread);
    for (const WalkedFrame& frame : walk.frames)
      for (ResolvedStackFrame& resolved : resolve(frame, process))
        walked.frames.push_back(std::move(resolved));
    walked.end = walk.end;
    out.threads.push_back(std::move(walked));
  }
  std::set<const SnapshotModule*> walked_modules;
  for (const WalkedThread& thread : out.threads)
    for (const ResolvedStackFrame& frame : thread.frames)
      if (frame.module && frame.unloaded) {
        if (std::find(out.walked_unloaded.begin(), out.walked_unloaded.end(), frame.module) ==
            out.walked_unloaded.end())
          out.walked_unloaded.push_back(frame.module);
      } else if (frame.module) {
        walked_modules.insert(frame.module);
      }
  for (const SnapshotModule& module : process.modules) {
    ModuleSymbolStatus status;
    status.module = &module;
    status.walked = walked_modules.count(&module) > 0;
    // Only the modules the walk asked for are looked up: loading every
    // module's symbols would cost what the walk did not need.
    auto known = walker.symbolStatus().find(&module);
    status.looked_up = known != walker.symbolStatus().end();
    if (!status.looked_up) {
      out.modules.push_back(std::move(status));
      continue;
    }
    const SymbolLookup& lookup = known->second;
    status.status = lookup.status;
    status.problem = lookup.problem;
    status.attempts = lookup.attempts;
    if (lookup.symbols) {
      status.symbols = lookup.symbols;
      status.path = lookup.symbols->path;
      status.corrupt = lookup.symbols->corrupt;
    }
    out.modules.push_back(std::move(status));
  }
  return out;
}

} // namespace dumpsyms
