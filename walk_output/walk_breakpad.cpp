// Breakpad's minidump_stackwalk output, byte for byte: the human form
// (stackwalk_common's layout: the system, the crash, each thread's frames
// with their registers and how they were found, the loaded modules) and
// the machine form of -m. The rules are written down in docs/STACKWALK.md.
#include "walk_output/crash_reason.h"
#include "walk_output/system_text.h"
#include "walk_output/walk_printers.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace dumpsyms {

namespace {

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

std::string hex8(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%08" PRIx64, value);
  return text;
}

// The address Breakpad prints a frame at and measures its offsets from:
// x86 and amd64 frames print their return address (their pc), every other
// frame (inlined calls on every CPU) the address it was looked up at.
uint64_t printedAddress(const ResolvedStackFrame& frame, SnapshotCpu cpu) {
  bool returns = cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Amd64;
  return returns && !frame.inlined ? frame.address : frame.instruction;
}

std::string frameText(const ResolvedStackFrame& frame, SnapshotCpu cpu) {
  uint64_t address = printedAddress(frame, cpu);
  if (!frame.module)
    return hex(address);
  std::string module = pathFileName(frame.module->code_file);
  std::string function = frame.function;
  if (frame.inlined && !frame.origin_known)
    function = "<name omitted>";
  if (function.empty())
    return module + " + " + hex(address - frame.module->base);
  if (!frame.file.empty() && frame.line_base)
    return module + "!" + function + " [" + pathFileName(frame.file) + " : " +
           std::to_string(frame.line) + " + " + hex(address - *frame.line_base) + "]";
  return module + "!" + function + " + " + hex(address - frame.function_base.value_or(0));
}

const char* foundBy(FrameTrust trust) {
  switch (trust) {
  case FrameTrust::Context:
    return "given as instruction pointer in context";
  case FrameTrust::Prewalked:
    return "recovered by external stack walker";
  case FrameTrust::Cfi:
    return "call frame info";
  case FrameTrust::CfiScan:
    return "call frame info with scanning";
  case FrameTrust::FramePointer:
    return "previous frame's frame pointer";
  case FrameTrust::Scan:
    return "stack scanning";
  case FrameTrust::Inline:
    return "inline record";
  case FrameTrust::Leaf:
    return "simulating a return from leaf function";
  }
  return "unknown";
}

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
    auto value = frame.registers.find(ours);
    if (value == frame.registers.end())
      continue;
    char item[64];
    if (wide)
      std::snprintf(item, sizeof item, " %5s = 0x%016" PRIx64, printed.c_str(), value->second);
    else
      std::snprintf(item, sizeof item, " %5s = 0x%08" PRIx64, printed.c_str(),
                    value->second & 0xffffffff);
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

// -s: the stack between a frame's stack pointer and its caller's, as hex
// and text, then each word there that points into a module whose symbols
// the walk loaded, with what it points at.
void printStackContents(const ProcessWalk& walk, const WalkedThread& thread, size_t index,
                        std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  SnapshotCpu cpu = snapshot.cpu;
  unsigned word =
      cpu == SnapshotCpu::X86 || cpu == SnapshotCpu::Arm || cpu == SnapshotCpu::Riscv         ? 4
      : cpu == SnapshotCpu::Amd64 || cpu == SnapshotCpu::Arm64 || cpu == SnapshotCpu::Riscv64 ? 8
                                                                                              : 0;
  const char* sp_name = cpu == SnapshotCpu::X86     ? "$esp"
                        : cpu == SnapshotCpu::Amd64 ? "$rsp"
                                                    : "sp";
  if (word == 0 || index + 1 >= thread.frames.size())
    return;
  auto sp = [&](const ResolvedStackFrame& frame) -> uint64_t {
    auto found = frame.registers.find(sp_name);
    return found == frame.registers.end() ? 0 : found->second;
  };
  // From this frame's stack pointer to its caller's: the next frame that
  // is no inlined call (Breakpad reads a stack pointer inlined calls do not
  // have there).
  if (thread.frames[index].inlined)
    return;
  size_t next = index + 1;
  while (next < thread.frames.size() && thread.frames[next].inlined)
    ++next;
  if (next == thread.frames.size())
    return;
  uint64_t begin = sp(thread.frames[index]), end = sp(thread.frames[next]);
  if (begin == 0 || end == 0)
    return;
  // The thread's own stack, as Breakpad reads it.
  const SnapshotThread* source = thread.source;
  auto byte = [&](uint64_t address) -> std::optional<uint8_t> {
    if (source && source->stack_size > 0 &&
        (address < source->stack_start || address - source->stack_start >= source->stack_size))
      return std::nullopt;
    auto bytes = snapshot.memory.read(address, 1);
    return bytes ? std::optional<uint8_t>((*bytes)[0]) : std::nullopt;
  };
  std::fprintf(out, "\n    Stack contents:");
  for (uint64_t row = begin; row < end; row += 16) {
    std::fprintf(out, "\n     %0*" PRIx64, word * 2, row);
    std::string text;
    for (uint64_t i = 0; i < 16; ++i) {
      std::optional<uint8_t> b = byte(row + i);
      if (b) {
        std::fprintf(out, " %02x", *b);
        text += *b >= 0x20 && *b < 0x7f ? char(*b) : '.';
      } else {
        std::fprintf(out, "   ");
        text += ' ';
      }
    }
    std::fprintf(out, "  %s", text.c_str());
  }
  std::fprintf(out, "\n    Possible instruction pointers:\n");
  for (uint64_t at = begin; at < end; at += word) {
    std::optional<uint64_t> value;
    if (byte(at) && byte(at + word - 1))
      value = snapshot.memory.readWord(at, word);
    if (!value)
      continue;
    const SnapshotModule* module = snapshot.moduleAt(*value, false);
    if (!module)
      continue;
    auto status = std::find_if(walk.modules.begin(), walk.modules.end(),
                               [&](const ModuleSymbolStatus& s) { return s.module == module; });
    if (status == walk.modules.end() || !status->symbols)
      continue;
    AddressInfo info = status->symbols->lookup.lookup(*value - module->base);
    uint64_t line_base = info.line_start ? module->base + *info.line_start : 0;
    auto line = [&](const std::string& function, const std::string& file, uint32_t number) {
      if (function.empty())
        return;
      std::fprintf(out,
                   "     *(0x%0*" PRIx64 ") = 0x%0*" PRIx64 " <%s> [%s : %u + 0x%" PRIx64 "]\n",
                   word * 2, at, word * 2, *value, function.c_str(), pathFileName(file).c_str(),
                   number, *value - line_base);
    };
    if (info.frames.empty()) {
      if (info.public_name)
        line(*info.public_name, "", 0);
      continue;
    }
    // The frame itself, then its inlined calls innermost first.
    const SourceFrame& physical = info.frames.back();
    line(physical.function, physical.file, physical.line);
    for (size_t i = 0; i + 1 < info.frames.size(); ++i)
      line(info.frames[i].function.empty() ? "<name omitted>" : info.frames[i].function,
           info.frames[i].file, info.frames[i].line);
  }
  std::fprintf(out, "\n");
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
      printStackContents(walk, thread, i, out);
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
  std::string id = pathFileName(module.debug_file) + ", " + module.debug_id;
  if (missing)
    return "  (WARNING: No symbols, " + id + ")";
  if (corrupt)
    return "  (WARNING: Corrupt symbols, " + id + ")";
  return "";
}

std::string strip(const std::string& text) {
  std::string out;
  for (char c : text)
    if (c != '|' && c != '\n')
      out += c;
  return out;
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
  std::fprintf(out, "\nGPU: UNKNOWN\n\n");
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
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    bool main = snapshot.main_module_base && *snapshot.main_module_base != 0 &&
                module.base == *snapshot.main_module_base;
    std::fprintf(out, "%s - %s  %s  %s%s%s\n", hex8(module.base).c_str(),
                 hex8(module.base + module.size - 1).c_str(),
                 pathFileName(module.code_file).c_str(),
                 module.version.empty() ? "???" : module.version.c_str(), main ? "  (main)" : "",
                 moduleWarning(walk, module).c_str());
  }
}

void printWalkBreakpadMachine(const ProcessWalk& walk, std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  SnapshotCpu cpu = snapshot.cpu;
  SystemText system = systemText(snapshot);
  std::fprintf(out, "OS|%s|%s\n", strip(system.os).c_str(), strip(system.os_version).c_str());
  std::fprintf(out, "CPU|%s|%s|%u\n", strip(system.cpu).c_str(), strip(system.cpu_info).c_str(),
               system.cpu_count);
  std::fprintf(out, "GPU|||\n");
  std::string requesting = walk.requesting ? std::to_string(*walk.requesting) : "";
  if (walk.crashed) {
    std::fprintf(out, "Crash|%s|%s|%s\n", strip(crashReason(snapshot)).c_str(),
                 hex(crashAddress(snapshot)).c_str(), requesting.c_str());
  } else {
    std::string assertion = assertionText(snapshot);
    std::fprintf(out, "Crash|%s||%s\n", assertion.empty() ? "No crash" : strip(assertion).c_str(),
                 requesting.c_str());
  }
  for (const ModuleSymbolStatus& status : walk.modules) {
    const SnapshotModule& module = *status.module;
    bool main = snapshot.main_module_base && module.base == *snapshot.main_module_base;
    std::fprintf(out, "Module|%s|%s|%s|%s|%s|%s|%d\n",
                 strip(pathFileName(module.code_file)).c_str(), strip(module.version).c_str(),
                 strip(pathFileName(module.debug_file)).c_str(), strip(module.debug_id).c_str(),
                 hex8(module.base).c_str(), hex8(module.base + module.size - 1).c_str(),
                 main ? 1 : 0);
  }
  std::fprintf(out, "\n");
  auto printThread = [&](size_t index) {
    const WalkedThread& thread = walk.threads[index];
    for (size_t i = 0; i < thread.frames.size(); ++i) {
      const ResolvedStackFrame& frame = thread.frames[i];
      uint64_t address = printedAddress(frame, cpu);
      std::string tail;
      std::string function =
          frame.inlined && !frame.origin_known ? "<name omitted>" : frame.function;
      if (!frame.module) {
        tail = "||||" + hex(address);
      } else {
        std::string module = strip(pathFileName(frame.module->code_file));
        if (function.empty())
          tail = module + "||||" + hex(address - frame.module->base);
        else if (!frame.file.empty() && frame.line_base)
          tail = module + "|" + strip(function) + "|" + strip(frame.file) + "|" +
                 std::to_string(frame.line) + "|" + hex(address - *frame.line_base);
        else
          tail = module + "|" + strip(function) + "|||" +
                 hex(address - frame.function_base.value_or(0));
      }
      std::fprintf(out, "%zu|%zu|%s\n", index, i, tail.c_str());
    }
  };
  if (walk.requesting)
    printThread(*walk.requesting);
  for (size_t i = 0; i < walk.threads.size(); ++i)
    if (!walk.requesting || i != *walk.requesting)
      printThread(i);
}

} // namespace dumpsyms
