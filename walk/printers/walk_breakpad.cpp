// Breakpad's minidump_stackwalk human output, byte for byte: the system,
// the crash, each thread's frames with their registers and how they were
// found, the loaded modules (docs/STACKWALK.md has the rules).
#include "walk/printers/breakpad_stack_contents.h"
#include "walk/printers/breakpad_words.h"
#include "walk/printers/crash_reason.h"
#include "walk/printers/system_text.h"
#include "walk/printers/walk_printers.h"

#include <cinttypes>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

namespace {

using namespace breakpad_words;

// The registers Breakpad prints for a CPU, in its order: (printed name,
// our name). x86's last four only for the context frame.
std::vector<std::pair<std::string, std::string>> registerTable(SnapshotCpu cpu) {
  std::vector<std::pair<std::string, std::string>> table;
  auto add = [&](std::string printed, std::string ours) {
    table.emplace_back(std::move(printed), std::move(ours));
  };
  switch (cpu) {
  case SnapshotCpu::X86:
    for (const char* name : {"eip", "esp", "ebp", "ebx", "esi", "edi", "eax", "ecx", "edx"})
      add(name, std::string("$") + name);
    add("efl", "$eflags");
    break;
  case SnapshotCpu::Amd64:
    for (const char* name : {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8", "r9",
                             "r10", "r11", "r12", "r13", "r14", "r15", "rip"})
      add(name, std::string("$") + name);
    break;
  case SnapshotCpu::Arm:
    for (int i = 0; i <= 10; ++i)
      add("r" + std::to_string(i), "r" + std::to_string(i));
    add("r12", "r12");
    add("fp", "r11");
    add("sp", "sp");
    add("lr", "lr");
    add("pc", "pc");
    break;
  case SnapshotCpu::Arm64:
    for (int i = 0; i <= 28; ++i)
      add("x" + std::to_string(i), "x" + std::to_string(i));
    add("fp", "x29");
    add("lr", "x30");
    add("sp", "sp");
    add("pc", "pc");
    break;
  case SnapshotCpu::Mips:
  case SnapshotCpu::Mips64:
    for (const char* name : {"gp", "sp", "fp", "ra", "pc"})
      add(name, std::string("$") + name);
    for (int i = 0; i <= 7; ++i)
      add("s" + std::to_string(i), "$s" + std::to_string(i));
    break;
  case SnapshotCpu::Riscv:
  case SnapshotCpu::Riscv64:
    for (const char* name : {"pc", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2", "s0", "s1", "a0",
                             "a1", "a2", "a3", "a4", "a5",  "a6",  "a7", "s2", "s3", "s4", "s5",
                             "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"})
      add(name, name);
    break;
  default:
    break;
  }
  return table;
}

bool wideRegisters(SnapshotCpu cpu) {
  return cpu == SnapshotCpu::Amd64 || cpu == SnapshotCpu::Arm64 || cpu == SnapshotCpu::Mips ||
         cpu == SnapshotCpu::Mips64 || cpu == SnapshotCpu::Riscv64;
}

std::string registerLines(const ResolvedStackFrame& frame, SnapshotCpu cpu) {
  std::string out = " ";
  if (frame.inlined)
    return out;
  bool wide = wideRegisters(cpu);
  size_t column = 0;
  for (const auto& [printed, ours] : registerTable(cpu)) {
    if (cpu == SnapshotCpu::X86 && frame.trust != FrameTrust::Context &&
        (ours == "$eax" || ours == "$ecx" || ours == "$edx" || ours == "$eflags"))
      continue;
    auto found = frame.registers.find(ours);
    if (found == frame.registers.end())
      continue;
    uint64_t value = found->second;
    // Breakpad's mips caller frames hold the call in $pc, two instructions
    // (the call and its delay slot) before the return address.
    if ((cpu == SnapshotCpu::Mips || cpu == SnapshotCpu::Mips64) && ours == "$pc" &&
        frame.trust != FrameTrust::Context && frame.instruction != frame.address)
      value = frame.instruction;
    char item[64];
    if (wide)
      std::snprintf(item, sizeof item, " %5s = 0x%016" PRIx64, printed.c_str(), value);
    else
      std::snprintf(item, sizeof item, " %5s = 0x%08" PRIx64, printed.c_str(), value & 0xffffffff);
    size_t length = std::strlen(item);
    if (column + length > 80) {
      out += "\n ";
      column = 0;
    }
    out += item;
    column += length;
  }
  return out;
}

void printStack(const ProcessWalk& walk, const WalkedThread& thread,
                const BreakpadPrintOptions& options, std::FILE* out) {
  SnapshotCpu cpu = walk.snapshot->cpu;
  if (thread.frames.empty()) {
    std::fprintf(out, " <no frames>\n");
    return;
  }
  for (size_t i = 0; i < thread.frames.size(); ++i) {
    const ResolvedStackFrame& frame = thread.frames[i];
    std::fprintf(out, "%2zu  %s\n", i, frameText(frame, cpu).c_str());
    std::fprintf(out, "%s\n", registerLines(frame, cpu).c_str());
    std::fprintf(out, "    Found by: %s\n", foundBy(frame.trust));
    if (options.stack_contents)
      printBreakpadStackContents(walk, thread, i, out);
  }
}

// The warning a module's line ends with, as Breakpad words it: only when
// symbol paths were given, for the modules a walked frame was in whose
// symbols were missing (or loaded but corrupt) -- and, as Breakpad matches
// them by debug file and id, for every module with the same two (all the
// modules without ids, when a frame was in one of them or in an unloaded
// module).
std::string moduleWarning(const ProcessWalk& walk, const SnapshotModule& module) {
  if (!walk.symbols_given)
    return "";
  auto key = [](const SnapshotModule& m) { return std::make_pair(m.debug_file, m.debug_id); };
  bool missing = false, corrupt = false;
  for (const SnapshotModule* unloaded : walk.walked_unloaded)
    missing |= key(*unloaded) == key(module);
  for (const ModuleSymbolStatus& status : walk.modules) {
    if (!status.walked || !status.looked_up || key(*status.module) != key(module))
      continue;
    missing |= status.status == SymbolStatus::Missing;
    corrupt |= status.status == SymbolStatus::Loaded && status.corrupt;
  }
  std::string id = pathFileName(module.debug_file) + ", " + module.debug_id.str();
  if (missing)
    return "  (WARNING: No symbols, " + id + ")";
  if (corrupt)
    return "  (WARNING: Corrupt symbols, " + id + ")";
  return "";
}

} // namespace

void printWalkBreakpad(const ProcessWalk& walk, const BreakpadPrintOptions& options,
                       std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  SnapshotCpu cpu = snapshot.cpu;
  if (options.brief) {
    if (!walk.requesting) {
      std::fprintf(out, " <no crashing or requesting dump thread identified>\n");
      return;
    }
    const WalkedThread& thread = walk.threads[*walk.requesting];
    std::fprintf(out, "Thread %zu (%s)\n", *walk.requesting,
                 walk.crashed ? "crashed" : "requested dump, did not crash");
    for (size_t i = 0; i < thread.frames.size(); ++i)
      std::fprintf(out, "%2zu  %s\n", i, frameText(thread.frames[i], cpu).c_str());
    return;
  }
  SystemText system = systemText(snapshot);
  std::fprintf(out, "Operating system: %s\n", system.os.c_str());
  std::fprintf(out, "                  %s\n", system.os_version.c_str());
  std::fprintf(out, "CPU: %s\n", system.cpu.c_str());
  if (!system.cpu_info.empty())
    std::fprintf(out, "     %s\n", system.cpu_info.c_str());
  std::fprintf(out, "     %u CPU%s\n", system.cpu_count, system.cpu_count == 1 ? "" : "s");
  const SnapshotSystem& gpu = snapshot.system;
  if (gpu.gl_version.empty() && gpu.gl_vendor.empty() && gpu.gl_renderer.empty())
    std::fprintf(out, "\nGPU: UNKNOWN\n\n");
  else
    std::fprintf(out, "\nGPU: %s\n     %s\n     %s\n\n", gpu.gl_version.c_str(),
                 gpu.gl_vendor.c_str(), gpu.gl_renderer.c_str());
  if (walk.crashed) {
    std::fprintf(out, "Crash reason:  %s\n", crashReason(snapshot).c_str());
    std::fprintf(out, "Crash address: %s\n", hex(crashAddress(snapshot)).c_str());
    if (!snapshot.crash->parameters.empty()) {
      std::fprintf(out, "Crash parameters:\n");
      for (uint64_t parameter : snapshot.crash->parameters)
        std::fprintf(out, "    value: 0x%016" PRIx64 "  description: \n", parameter);
    }
  } else {
    std::fprintf(out, "No crash\n");
  }
  if (std::string assertion = assertionText(snapshot); !assertion.empty())
    std::fprintf(out, "Assertion: %s\n", assertion.c_str());
  bool uptime = snapshot.process_create_time && snapshot.dump_time &&
                *snapshot.process_create_time && *snapshot.dump_time &&
                *snapshot.dump_time >= *snapshot.process_create_time;
  if (uptime)
    std::fprintf(out, "Process uptime: %d seconds\n",
                 static_cast<int32_t>(*snapshot.dump_time - *snapshot.process_create_time));
  else
    std::fprintf(out, "Process uptime: not available\n");

  if (walk.requesting) {
    std::fprintf(out, "\nThread %zu (%s)\n", *walk.requesting,
                 walk.crashed ? "crashed" : "requested dump, did not crash");
    printStack(walk, walk.threads[*walk.requesting], options, out);
  }
  if (options.thread_index && *options.thread_index >= 0) {
    size_t index = static_cast<size_t>(*options.thread_index);
    if (index < walk.threads.size()) {
      std::fprintf(out, "\nThread %zu\n", index);
      printStack(walk, walk.threads[index], options, out);
    }
    return; // Breakpad prints no module list with -t
  }
  if (!options.requesting_thread_only)
    for (size_t i = 0; i < walk.threads.size(); ++i) {
      if (walk.requesting && i == *walk.requesting)
        continue;
      std::fprintf(out, "\nThread %zu\n", i);
      printStack(walk, walk.threads[i], options, out);
    }
  if (snapshot.modules.empty())
    return;
  std::fprintf(out, "\nLoaded modules:\n");
  for (const ModuleSymbolStatus* status : modulesInBreakpadOrder(walk)) {
    const SnapshotModule& module = *status->module;
    bool main = snapshot.main_module_base && *snapshot.main_module_base != 0 &&
                module.base == *snapshot.main_module_base;
    std::fprintf(out, "%s - %s  %s  %s%s%s\n", hex8(module.base).c_str(),
                 hex8(module.base + module.size - 1).c_str(),
                 pathFileName(module.code_file).c_str(),
                 module.version.empty() ? "???" : module.version.c_str(), main ? "  (main)" : "",
                 moduleWarning(walk, module).c_str());
  }
}

} // namespace dumpsyms
