// Breakpad's minidump_stackwalk -m: OS, CPU, GPU and Crash lines, a Module
// line each, then a line a frame, `|` between the fields.
#include "walk/printers/breakpad_words.h"
#include "walk/printers/crash_reason.h"
#include "walk/printers/system_text.h"
#include "walk/printers/walk_printers.h"

#include <cinttypes>

namespace dumpsyms {

using namespace breakpad_words;

void printWalkBreakpadMachine(const ProcessWalk& walk, std::FILE* out) {
  const ProcessSnapshot& snapshot = *walk.snapshot;
  SnapshotCpu cpu = snapshot.cpu;
  SystemText system = systemText(snapshot);
  std::fprintf(out, "OS|%s|%s\n", strip(system.os).c_str(), strip(system.os_version).c_str());
  std::fprintf(out, "CPU|%s|%s|%u\n", strip(system.cpu).c_str(), strip(system.cpu_info).c_str(),
               system.cpu_count);
  std::fprintf(out, "GPU|%s|%s|%s\n", strip(snapshot.system.gl_version).c_str(),
               strip(snapshot.system.gl_vendor).c_str(),
               strip(snapshot.system.gl_renderer).c_str());
  std::string requesting = walk.requesting ? std::to_string(*walk.requesting) : "";
  if (walk.crashed) {
    std::fprintf(out, "Crash|%s|%s|%s\n", strip(crashReason(snapshot)).c_str(),
                 hex(crashAddress(snapshot)).c_str(), requesting.c_str());
  } else {
    std::string assertion = assertionText(snapshot);
    std::fprintf(out, "Crash|%s||%s\n", assertion.empty() ? "No crash" : strip(assertion).c_str(),
                 requesting.c_str());
  }
  for (const ModuleSymbolStatus* status : modulesInBreakpadOrder(walk)) {
    const SnapshotModule& module = *status->module;
    bool main = snapshot.main_module_base && module.base == *snapshot.main_module_base;
    std::fprintf(out, "Module|%s|%s|%s|%s|%s|%s|%d\n",
                 strip(pathFileName(module.code_file)).c_str(), strip(module.version).c_str(),
                 strip(pathFileName(module.debug_file)).c_str(),
                 strip(module.debug_id.str()).c_str(), hex8(module.base).c_str(),
                 hex8(module.base + module.size - 1).c_str(), main ? 1 : 0);
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
