#include "stackwalk/core_walk.h"

#include <csignal>

namespace dumpsyms {

namespace {

bool fatal(int signal) {
  return signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE ||
         signal == SIGABRT || signal == SIGTRAP || signal == SIGSYS;
}

std::vector<ResolvedStackFrame> resolve(const WalkedFrame& frame) {
  ResolvedStackFrame base;
  base.address = frame.pc;
  base.trust = frame.trust;
  if (!frame.module)
    return {base};
  base.module = frame.module->name;
  base.offset = frame.pc - frame.module->base;
  if (!frame.symbols)
    return {base};
  // A return address follows its call: look the call up, as debuggers do.
  AddressInfo info = frame.symbols->lookup.lookup(*base.offset - (frame.exact ? 0 : 1));
  if (info.frames.empty()) {
    if (info.public_name) {
      base.function = *info.public_name;
      base.function_offset = info.public_offset + (frame.exact ? 0 : 1);
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
    out.push_back(std::move(one));
  }
  return out;
}

} // namespace

size_t crashedThread(const std::vector<CoreThread>& threads) {
  for (size_t i = 0; i < threads.size(); ++i)
    if (fatal(threads[i].signal))
      return i;
  for (size_t i = 0; i < threads.size(); ++i)
    if (threads[i].signal != 0)
      return i;
  return 0;
}

llvm::Expected<WalkedCore> walkCore(const std::string& core_path, const std::string& store) {
  auto core = CoreFile::open(core_path);
  if (!core)
    return core.takeError();
  WalkedCore out;
  out.warnings = (*core)->warnings();
  out.modules = findCoreModules(**core);
  StoreModules symbols(store);
  StackWalker walker(**core, out.modules, symbols);

  const std::vector<CoreThread>& threads = (*core)->threads();
  size_t crashed = crashedThread(threads);
  std::vector<size_t> order = {crashed};
  for (size_t i = 0; i < threads.size(); ++i)
    if (i != crashed)
      order.push_back(i);
  for (size_t index : order) {
    const CoreThread& thread = threads[index];
    WalkedThread walked;
    walked.tid = thread.tid;
    walked.signal = thread.signal;
    walked.crashed = index == crashed;
    ThreadWalk walk = walker.walk(thread);
    for (size_t i = 0; i < walk.frames.size(); ++i)
      for (ResolvedStackFrame& frame : resolve(walk.frames[i]))
        walked.frames.push_back(std::move(frame));
    walked.end = walk.end;
    out.threads.push_back(std::move(walked));
  }
  for (const CoreModule& module : out.modules)
    if (auto missing = walker.missingSymbols().find(&module);
        missing != walker.missingSymbols().end())
      out.missing_symbols.emplace_back(module.name.empty() ? module.debug_id : module.name,
                                       missing->second);
  return out;
}

} // namespace dumpsyms
