#include "walk/core/core_snapshot.h"

#include "walk/core/core_file.h"
#include "walk/core/core_modules.h"

#include <csignal>
#include <llvm/BinaryFormat/ELF.h>

namespace dumpsyms {

namespace {

bool fatal(int signal) {
  return signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE ||
         signal == SIGABRT || signal == SIGTRAP || signal == SIGSYS;
}

// The thread a fatal signal stopped, else any a signal stopped; nullopt
// when none was (a core taken of a running process).
std::optional<size_t> crashedThread(const std::vector<CoreThread>& threads) {
  for (size_t i = 0; i < threads.size(); ++i)
    if (fatal(threads[i].signal))
      return i;
  for (size_t i = 0; i < threads.size(); ++i)
    if (threads[i].signal != 0)
      return i;
  return std::nullopt;
}

ProcessSnapshot snapshotOf(std::shared_ptr<CoreFile> core) {
  ProcessSnapshot snapshot;
  snapshot.path = core->path();
  snapshot.format = "core";
  snapshot.cpu = core->machine() == llvm::ELF::EM_X86_64 ? SnapshotCpu::Amd64 : SnapshotCpu::Arm64;
  snapshot.system.os = SnapshotOs::Linux;
  snapshot.warnings = core->warnings();
  for (const CoreThread& thread : core->threads()) {
    SnapshotThread out;
    out.id = thread.tid;
    out.registers = thread.registers;
    out.signal = thread.signal;
    snapshot.threads.push_back(std::move(out));
  }
  snapshot.memory = core->memory();
  for (const CoreSegment& segment : core->segments())
    snapshot.mappings.push_back(
        {segment.address, segment.address + segment.size, segment.executable, 0, ""});
  for (const CoreModule& module : findCoreModules(*core)) {
    SnapshotModule out;
    out.base = module.base;
    out.size = module.end - module.base;
    out.code_file = module.path;
    out.debug_file = module.name;
    out.debug_id = module.debug_id;
    out.build_id = module.build_id;
    out.code_id = CodeId(module.build_id.hex());
    snapshot.modules.push_back(std::move(out));
  }
  if (!snapshot.modules.empty())
    snapshot.main_module_base = snapshot.modules.front().base;
  if (std::optional<size_t> crashed = crashedThread(core->threads())) {
    const CoreThread& thread = core->threads()[*crashed];
    SnapshotCrash crash;
    crash.thread_id = thread.tid;
    crash.code = static_cast<uint32_t>(thread.signal);
    crash.flags = static_cast<uint32_t>(thread.signal_code.value_or(0));
    crash.address = thread.signal_address.value_or(0);
    snapshot.crash = crash;
    snapshot.requesting_thread_id = thread.tid;
  }
  snapshot.owner = std::move(core);
  return snapshot;
}

} // namespace

llvm::Expected<ProcessSnapshot> readCoreSnapshot(const std::string& path) {
  auto core = CoreFile::open(path);
  if (!core)
    return core.takeError();
  return snapshotOf(std::shared_ptr<CoreFile>(std::move(*core)));
}

llvm::Expected<ProcessSnapshot> parseCoreSnapshot(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                  const std::string& path) {
  auto core = CoreFile::parse(std::move(buffer), path);
  if (!core)
    return core.takeError();
  return snapshotOf(std::shared_ptr<CoreFile>(std::move(*core)));
}

} // namespace dumpsyms
