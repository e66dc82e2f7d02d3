#include "walk/microdump/microdump_snapshot.h"

#include "common/errors/file_error.h"
#include "common/limits/input_limits.h"
#include "walk/microdump/microdump_records.h"
#include "walk/minidump/cpu_context.h"

#include <algorithm>
#include <llvm/ADT/StringExtras.h>

namespace dumpsyms {

namespace {

struct Arch {
  llvm::StringRef name;
  SnapshotCpu cpu;
  uint16_t processor_architecture; // MINIDUMP_SYSTEM_INFO's, as Breakpad names CPUs by it
};

constexpr Arch kArches[] = {{"arm", SnapshotCpu::Arm, 5},
                            {"arm64", SnapshotCpu::Arm64, 0x8003},
                            {"x86", SnapshotCpu::X86, 0},
                            {"x86_64", SnapshotCpu::Amd64, 9},
                            {"mips", SnapshotCpu::Mips, 1},
                            {"mips64", SnapshotCpu::Mips64, 0x8004},
                            {"riscv32", SnapshotCpu::Riscv, 0x8005},
                            {"riscv64", SnapshotCpu::Riscv64, 0x8006}};

std::optional<uint64_t> hexNumber(llvm::StringRef text) {
  uint64_t value;
  if (text.empty() || text.size() > 16 || text.getAsInteger(16, value))
    return std::nullopt;
  return value;
}

bool hexBytes(llvm::StringRef text, std::vector<uint8_t>& out) {
  if (text.size() % 2)
    return false;
  for (size_t i = 0; i < text.size(); i += 2) {
    unsigned high = llvm::hexDigitValue(text[i]), low = llvm::hexDigitValue(text[i + 1]);
    if (high > 15 || low > 15)
      return false;
    out.push_back(uint8_t(high << 4 | low));
  }
  return true;
}

// The words of a record, split at runs of spaces.
std::vector<llvm::StringRef> words(llvm::StringRef text, size_t at_most) {
  std::vector<llvm::StringRef> out;
  text = text.ltrim(' ');
  while (!text.empty() && out.size() + 1 < at_most) {
    auto [word, rest] = text.split(' ');
    out.push_back(word);
    text = rest.ltrim(' ');
  }
  if (!text.empty())
    out.push_back(text);
  return out;
}

struct Owned {
  std::vector<uint8_t> stack;
};

} // namespace

llvm::Expected<ProcessSnapshot> readMicrodumpSnapshot(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  return parseMicrodumpSnapshot(std::move(*buffer), path);
}

llvm::Expected<ProcessSnapshot> parseMicrodumpSnapshot(std::unique_ptr<llvm::MemoryBuffer> log,
                                                       const std::string& path) {
  if (log->getBufferSize() > limits::kMaxMicrodumpLog)
    return fileError(path, limits::overLimit("the log", limits::kMaxMicrodumpLog, "bytes"));
  MicrodumpText text = findMicrodump(log->getBuffer());
  if (!text.begin_line)
    return fileError(path, "holds no microdump (no -----BEGIN BREAKPAD MICRODUMP----- line)");
  auto bad = [&](const MicrodumpRecord& record, const std::string& what) {
    return fileError(path, "line " + std::to_string(record.line) + ": " + what);
  };

  ProcessSnapshot out;
  out.path = path;
  out.format = "microdump";
  auto owned = std::make_shared<Owned>();
  const Arch* arch = nullptr;
  std::optional<DecodedContext> context;
  std::optional<uint64_t> stack_base, stack_pointer;
  bool stack_broken = false;
  SnapshotCrash crash;
  crash.stated_reason = std::string();
  for (const MicrodumpRecord& record : text.records) {
    switch (record.kind) {
    case 'V':
      out.annotations.push_back({"product", record.text.trim().str()});
      break;
    case 'P':
      out.annotations.push_back({"process_type", record.text.trim().str()});
      break;
    case 'O': {
      // O <L|A> <arch> <cpu count> <hardware arch> <build fingerprint or uname>
      auto fields = words(record.text, 5);
      if (fields.size() < 3)
        return bad(record, "an O record needs an OS, an architecture and a CPU count");
      arch = nullptr;
      for (const Arch& known : kArches)
        if (fields[1] == known.name)
          arch = &known;
      if (!arch)
        return bad(record, "unknown architecture '" + fields[1].str() + "'");
      auto cpus = hexNumber(fields[2]);
      if (!cpus)
        return bad(record, "the CPU count '" + fields[2].str() + "' is not hex");
      SnapshotSystem& system = out.system;
      system.known = true;
      system.os = fields[0] == "A" ? SnapshotOs::Android : SnapshotOs::Linux;
      system.platform_id = fields[0] == "A" ? 0x8203 : 0x8201;
      if (fields[0] != "A" && fields[0] != "L")
        out.warnings.push_back("line " + std::to_string(record.line) + ": OS '" + fields[0].str() +
                               "' is neither L nor A: read as Linux");
      system.processor_architecture = arch->processor_architecture;
      system.cpu_count = uint32_t(*cpus);
      system.os_version_text = fields.size() > 4 ? fields[4].str() : std::string();
      system.cpu_info_text = std::string();
      out.cpu = arch->cpu;
      break;
    }
    case 'R': {
      // R <signal> <its name> <address>
      auto fields = words(record.text, 3);
      if (fields.size() < 3)
        return bad(record, "an R record needs a signal, its name and an address");
      auto signal = hexNumber(fields[0]);
      auto address = hexNumber(fields[2]);
      if (!signal || !address)
        return bad(record, "the R record's signal or address is not hex");
      crash.code = uint32_t(*signal);
      crash.stated_reason = fields[1].str();
      crash.address = *address;
      break;
    }
    case 'G': {
      llvm::StringRef gpu = record.text.trim();
      if (gpu != "UNKNOWN" && !gpu.empty()) {
        auto [version, rest] = gpu.split('|');
        auto [vendor, renderer] = rest.split('|');
        out.system.gl_version = version.str();
        out.system.gl_vendor = vendor.str();
        out.system.gl_renderer = renderer.str();
      }
      break;
    }
    case 'S': {
      auto fields = words(record.text, 4);
      if (fields.size() == 4 && fields[0] == "0") {
        // S 0 <stack pointer> <stack start> <length>
        stack_pointer = hexNumber(fields[1]);
        continue;
      }
      if (fields.size() != 2)
        return bad(record, "an S record is an address and bytes in hex");
      auto address = hexNumber(fields[0]);
      if (!address)
        return bad(record, "the S record's address is not hex");
      if (stack_broken)
        break;
      if (!stack_base)
        stack_base = *address;
      if (*address != *stack_base + owned->stack.size()) {
        out.warnings.push_back("line " + std::to_string(record.line) +
                               ": the stack is not contiguous there; the rest is left out");
        stack_broken = true;
        break;
      }
      if (fields[1].size() / 2 > limits::kMaxMicrodumpStack - owned->stack.size())
        return bad(record, limits::overLimit("the stack", limits::kMaxMicrodumpStack, "bytes"));
      if (!hexBytes(fields[1], owned->stack))
        return bad(record, "the S record's bytes are not hex");
      break;
    }
    case 'C': {
      std::vector<uint8_t> bytes;
      if (!hexBytes(record.text.trim(), bytes))
        return bad(record, "the C record is not hex");
      if (!arch)
        return bad(record, "a C record before the O record that says the CPU");
      std::string problem;
      llvm::StringRef raw(reinterpret_cast<const char*>(bytes.data()), bytes.size());
      context = decodeContext(raw, arch->cpu, problem);
      if (!context)
        return bad(record, "the CPU context: " + problem);
      if (!context->note.empty())
        out.warnings.push_back("line " + std::to_string(record.line) + ": " + context->note);
      break;
    }
    case 'M': {
      // M <start> <file offset> <size> <id: GUID and age> <name>
      auto fields = words(record.text, 5);
      if (fields.size() < 5)
        return bad(record, "an M record needs a start, offset, size, id and name");
      auto start = hexNumber(fields[0]);
      auto size = hexNumber(fields[2]);
      if (!start || !size || !hexNumber(fields[1]))
        return bad(record, "the M record's start, offset or size is not hex");
      if (out.modules.size() >= limits::kMaxMinidumpModules)
        return bad(record,
                   limits::overLimit("the module count", limits::kMaxMinidumpModules, "modules"));
      SnapshotModule module;
      module.base = *start;
      module.size = *size;
      // A mapping of a file deleted since ("name (deleted)" in
      // /proc/PID/maps) is the file's.
      llvm::StringRef name = fields[4];
      name.consume_back(" (deleted)");
      module.code_file = module.debug_file = name.str();
      module.debug_id = DebugId(fields[3].upper());
      module.code_id = CodeId(fields[3].upper());
      out.modules.push_back(std::move(module));
      break;
    }
    default: // H: the address space's free regions, for out-of-memory crashes
      break;
    }
  }
  if (!text.ended)
    out.warnings.push_back("the microdump has no END line: read as far as the log goes");
  if (text.more_microdumps)
    out.warnings.push_back(std::to_string(text.more_microdumps) +
                           " more microdump(s) follow in the log; the first is read");
  if (!arch)
    return fileError(path, "the microdump at line " + std::to_string(text.begin_line) +
                               " has no O record (OS and CPU)");
  if (!context)
    return fileError(path, "the microdump at line " + std::to_string(text.begin_line) +
                               " has no C record (the CPU context)");
  if (context->cpu != arch->cpu)
    return fileError(path, std::string("the C record is a ") + cpuName(context->cpu) +
                               " context in an " + arch->name.str() + " microdump");

  SnapshotThread thread;
  thread.id = 0;
  thread.registers = std::move(context->registers);
  if (stack_base && !owned->stack.empty()) {
    thread.stack_start = *stack_base;
    thread.stack_size = owned->stack.size();
    out.memory.add({*stack_base, owned->stack.size(), owned->stack.size(), owned->stack.data()});
  }
  (void)stack_pointer;
  out.threads.push_back(std::move(thread));
  out.memory.finish(out.warnings);
  std::stable_sort(
      out.modules.begin(), out.modules.end(),
      [](const SnapshotModule& a, const SnapshotModule& b) { return a.base < b.base; });
  crash.thread_id = 0;
  out.crash = crash;
  out.requesting_thread_id = 0;
  out.owner = owned;
  return out;
}

} // namespace dumpsyms
