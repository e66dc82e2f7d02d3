#include "walk/printers/breakpad_stack_contents.h"

#include <algorithm>
#include <cinttypes>
#include <optional>
#include <string>

namespace dumpsyms {

void printBreakpadStackContents(const ProcessWalk& walk, const WalkedThread& thread, size_t index,
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

} // namespace dumpsyms
