#include "minidump/minidump_snapshot.h"

#include "limits/input_limits.h"
#include "minidump/cpu_context.h"
#include "minidump/linux_maps.h"
#include "minidump/minidump_bytes.h"
#include "minidump/module_identity.h"
#include "minidump/stream_directory.h"
#include "object/elf_image.h"

#include <algorithm>
#include <llvm/ADT/ArrayRef.h>
#include <llvm/BinaryFormat/Minidump.h>
#include <llvm/Support/ConvertUTF.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/Path.h>
#include <map>

namespace dumpsyms {

namespace {

namespace md = llvm::minidump;
using llvm::support::endian::read32le;
using llvm::support::endian::read64le;

// Stream types (MINIDUMP_STREAM_TYPE and Breakpad's 0x4767xxxx ones).
enum : uint32_t {
  kThreadList = 3,
  kModuleList = 4,
  kMemoryList = 5,
  kException = 6,
  kSystemInfo = 7,
  kMemory64List = 9,
  kUnloadedModuleList = 14,
  kMiscInfo = 15,
  kMemoryInfoList = 16,
  kThreadNameList = 24,
  kBreakpadInfo = 0x47670001,
  kAssertionInfo = 0x47670002,
  kLinuxCpuInfo = 0x47670003,
  kLinuxProcStatus = 0x47670004,
  kLinuxLsbRelease = 0x47670005,
  kLinuxCmdLine = 0x47670006,
  kLinuxEnviron = 0x47670007,
  kLinuxAuxv = 0x47670008,
  kLinuxMaps = 0x47670009,
  kLinuxDsoDebug = 0x4767000A,
};

// The CPU a SystemInfo ProcessorArchitecture names (Microsoft's values and
// Breakpad's 0x8000 ones).
SnapshotCpu cpuOfArchitecture(uint16_t architecture) {
  switch (architecture) {
  case 0:
    return SnapshotCpu::X86;
  case 1:
    return SnapshotCpu::Mips;
  case 3:
    return SnapshotCpu::Ppc;
  case 5:
    return SnapshotCpu::Arm;
  case 9:
    return SnapshotCpu::Amd64;
  case 0xc:
  case 0x8003:
    return SnapshotCpu::Arm64;
  case 0x8002:
    return SnapshotCpu::Ppc64;
  case 0x8004:
    return SnapshotCpu::Mips64;
  case 0x8005:
    return SnapshotCpu::Riscv;
  case 0x8006:
    return SnapshotCpu::Riscv64;
  default:
    return SnapshotCpu::Unknown;
  }
}

SnapshotOs osOfPlatform(uint32_t platform) {
  switch (platform) {
  case 0:
  case 1:
  case 2:
  case 3:
    return SnapshotOs::Windows;
  case 0x8101:
    return SnapshotOs::MacOs;
  case 0x8102:
    return SnapshotOs::Ios;
  case 0x8201:
    return SnapshotOs::Linux;
  case 0x8202:
    return SnapshotOs::Solaris;
  case 0x8203:
    return SnapshotOs::Android;
  case 0x8206:
    return SnapshotOs::Fuchsia;
  default:
    return SnapshotOs::Other;
  }
}

std::string plural(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

class Reader {
public:
  Reader(const MinidumpBytes& bytes, const MinidumpDirectory& directory, ProcessSnapshot& out)
      : bytes_(bytes), directory_(directory), out_(out) {}

  void readSystemInfo();
  llvm::Error readThreads();
  void readThreadNames();
  void readException();
  void readModules();
  void readUnloadedModules();
  void readMemory();
  void readMiscInfo();
  void readBreakpadInfo();
  void readAssertion();
  void readLinuxStreams();
  void fixModuleExtents();

private:
  void warn(std::string message) { out_.warnings.push_back(std::move(message)); }
  // The entries of a list stream: a 32-bit count, then `entry`-byte
  // entries (after 4 bytes of padding some writers add to align them).
  // Returns the count the stream really holds, warning when it claims more.
  uint64_t listEntries(const MinidumpStream& stream, size_t entry, uint64_t limit, const char* what,
                       uint64_t& first);
  std::optional<DecodedContext> context(const md::LocationDescriptor& location,
                                        const std::string& whose);

  const MinidumpBytes& bytes_;
  const MinidumpDirectory& directory_;
  ProcessSnapshot& out_;
  SnapshotCpu hint_ = SnapshotCpu::Unknown;
  std::map<SnapshotCpu, size_t> context_cpus_;
};

uint64_t Reader::listEntries(const MinidumpStream& stream, size_t entry, uint64_t limit,
                             const char* what, uint64_t& first) {
  if (stream.bytes.size() < 4) {
    warn(std::string("the ") + what + " stream is too short for its count; left out");
    return 0;
  }
  uint64_t count = read32le(stream.bytes.data());
  first = 4;
  if (stream.bytes.size() == 8 + count * entry)
    first = 8;
  if (count > limit) {
    warn(limits::overLimit(std::string("the ") + what + " count (" + std::to_string(count) + ")",
                           limit, "entries") +
         "; the first " + std::to_string(limit) + " read");
    count = limit;
  }
  uint64_t held = (stream.bytes.size() - first) / entry;
  if (count > held) {
    warn(std::string("the ") + what + " stream claims " + std::to_string(count) +
         " entries but holds " + std::to_string(held) + "; those read");
    count = held;
  }
  return count;
}

std::optional<DecodedContext> Reader::context(const md::LocationDescriptor& location,
                                              const std::string& whose) {
  auto bytes = bytes_.at(location.RVA, location.DataSize);
  if (!bytes) {
    warn(whose + ": its context (" + std::to_string(location.DataSize) + " bytes at " +
         std::to_string(location.RVA) + ") runs past the end of the file");
    return std::nullopt;
  }
  std::string problem;
  std::optional<DecodedContext> decoded = decodeContext(*bytes, hint_, problem);
  if (!decoded) {
    warn(whose + ": " + problem);
    return std::nullopt;
  }
  if (!decoded->note.empty())
    warn(whose + ": " + decoded->note);
  return decoded;
}

void Reader::readSystemInfo() {
  const MinidumpStream* stream = directory_.first(kSystemInfo);
  if (!stream)
    return;
  if (stream->bytes.size() < sizeof(md::SystemInfo)) {
    warn("the SystemInfo stream is " + std::to_string(stream->bytes.size()) + " bytes, not " +
         std::to_string(sizeof(md::SystemInfo)) + "; left out");
    return;
  }
  md::SystemInfo info;
  std::memcpy(static_cast<void*>(&info), stream->bytes.data(), sizeof info);
  SnapshotSystem& system = out_.system;
  system.known = true;
  system.processor_architecture =
      static_cast<uint16_t>(static_cast<md::ProcessorArchitecture>(info.ProcessorArch));
  system.processor_level = info.ProcessorLevel;
  system.processor_revision = info.ProcessorRevision;
  system.cpu_count = info.NumberOfProcessors;
  system.major_version = info.MajorVersion;
  system.minor_version = info.MinorVersion;
  system.build_number = info.BuildNumber;
  system.platform_id = static_cast<uint32_t>(static_cast<md::OSPlatform>(info.PlatformId));
  system.os = osOfPlatform(system.platform_id);
  if (info.CSDVersionRVA != 0) {
    if (auto csd = bytes_.string(info.CSDVersionRVA)) {
      system.csd_version = *csd;
      system.csd_known = true;
    } else
      warn("SystemInfo's CSD version string cannot be read");
  }
  hint_ = cpuOfArchitecture(system.processor_architecture);
  if (hint_ == SnapshotCpu::X86 || hint_ == SnapshotCpu::Amd64) {
    system.cpu_vendor.assign(info.CPU.X86.VendorID, 12);
    system.cpu_vendor = system.cpu_vendor.substr(0, system.cpu_vendor.find('\0'));
    system.cpu_version = info.CPU.X86.VersionInfo;
    system.cpu_features = info.CPU.X86.FeatureInfo;
  } else if (hint_ == SnapshotCpu::Arm || hint_ == SnapshotCpu::Arm64) {
    system.arm_cpuid = info.CPU.Arm.CPUID;
    system.arm_hwcaps = info.CPU.Arm.ElfHWCaps;
  }
  out_.cpu = hint_;
}

llvm::Error Reader::readThreads() {
  std::vector<const MinidumpStream*> lists = directory_.all(kThreadList);
  if (lists.empty())
    return fileError(out_.path, "has no thread list (no ThreadList stream): nothing to walk");
  if (lists.size() > 1)
    warn(plural(lists.size(), "ThreadList stream", "ThreadList streams") + "; the first one read");
  uint64_t first = 0;
  uint64_t count = listEntries(*lists.front(), sizeof(md::Thread), limits::kMaxMinidumpThreads,
                               "thread list", first);
  for (uint64_t i = 0; i < count; ++i) {
    md::Thread thread;
    std::memcpy(static_cast<void*>(&thread),
                lists.front()->bytes.data() + first + i * sizeof(md::Thread), sizeof thread);
    SnapshotThread out;
    out.id = thread.ThreadId;
    std::string whose = "thread " + std::to_string(out.id);
    if (std::optional<DecodedContext> decoded = context(thread.Context, whose)) {
      ++context_cpus_[decoded->cpu];
      if (out_.cpu == SnapshotCpu::Unknown)
        out_.cpu = decoded->cpu;
      if (decoded->cpu == out_.cpu)
        out.registers = std::move(decoded->registers);
      else
        warn(whose + ": a context for " + cpuName(decoded->cpu) + " in a dump of " +
             cpuName(out_.cpu) + "; its registers left out");
    }
    out.stack_start = thread.Stack.StartOfMemoryRange;
    out.stack_size = thread.Stack.Memory.DataSize;
    // A full-memory dump (Memory64List) may give the stack's range with no
    // bytes of its own (RVA 0): they are in the memory list.
    if (thread.Stack.Memory.RVA == 0) {
      out.stack_size = 0;
    } else if (auto stack = bytes_.at(thread.Stack.Memory.RVA, thread.Stack.Memory.DataSize)) {
      if (!stack->empty())
        out_.memory.add({out.stack_start, stack->size(), stack->size(),
                         reinterpret_cast<const uint8_t*>(stack->data())});
    } else {
      warn(whose + ": its stack memory runs past the end of the file; left out");
      out.stack_size = 0;
    }
    out_.threads.push_back(std::move(out));
  }
  // SystemInfo names a CPU the contexts are not for (lldb's can be
  // garbage): the contexts decide.
  if (!context_cpus_.empty() && !context_cpus_.count(out_.cpu)) {
    auto most = std::max_element(context_cpus_.begin(), context_cpus_.end(),
                                 [](auto& a, auto& b) { return a.second < b.second; });
    warn(std::string("SystemInfo names the CPU ") + cpuName(out_.cpu) +
         ", the thread contexts are " + cpuName(most->first) + "'s: read as " +
         cpuName(most->first));
    out_.cpu = most->first;
  }
  return llvm::Error::success();
}

void Reader::readThreadNames() {
  const MinidumpStream* stream = directory_.first(kThreadNameList);
  if (!stream)
    return;
  constexpr size_t kEntry = 12; // ThreadId, then a 64-bit RVA of the name, packed
  uint64_t first = 0;
  uint64_t count =
      listEntries(*stream, kEntry, limits::kMaxMinidumpThreads, "thread name list", first);
  std::map<uint32_t, std::string> names;
  size_t unreadable = 0;
  for (uint64_t i = 0; i < count; ++i) {
    const char* entry = stream->bytes.data() + first + i * kEntry;
    std::optional<std::string> name = bytes_.string(read64le(entry + 4));
    if (name)
      names[read32le(entry)] = *name;
    else
      ++unreadable;
  }
  if (unreadable)
    warn(plural(unreadable, "thread name", "thread names") + " cannot be read");
  for (SnapshotThread& thread : out_.threads)
    if (auto name = names.find(thread.id); name != names.end())
      thread.name = name->second;
}

void Reader::readException() {
  std::vector<const MinidumpStream*> streams = directory_.all(kException);
  if (streams.empty())
    return;
  std::vector<md::ExceptionStream> read;
  for (const MinidumpStream* stream : streams) {
    if (stream->bytes.size() < sizeof(md::ExceptionStream)) {
      warn("an Exception stream is " + std::to_string(stream->bytes.size()) + " bytes, not " +
           std::to_string(sizeof(md::ExceptionStream)) + "; left out");
      continue;
    }
    md::ExceptionStream exception;
    std::memcpy(static_cast<void*>(&exception), stream->bytes.data(), sizeof exception);
    read.push_back(exception);
  }
  if (read.empty())
    return;
  // lldb writes one Exception stream per thread, most with no exception:
  // the crash is the first that has one.
  size_t chosen = 0;
  for (size_t i = 0; i < read.size(); ++i)
    if (read[i].ExceptionRecord.ExceptionCode != 0) {
      chosen = i;
      break;
    }
  if (read.size() > 1)
    warn(plural(read.size(), "Exception stream", "Exception streams") +
         " (one per thread, as lldb writes them): thread " + std::to_string(read[chosen].ThreadId) +
         "'s taken for the crash");
  const md::ExceptionStream& exception = read[chosen];
  SnapshotCrash crash;
  crash.thread_id = exception.ThreadId;
  crash.code = exception.ExceptionRecord.ExceptionCode;
  crash.flags = exception.ExceptionRecord.ExceptionFlags;
  crash.address = exception.ExceptionRecord.ExceptionAddress;
  uint32_t parameters = exception.ExceptionRecord.NumberParameters;
  if (parameters > md::Exception::MaxParameters) {
    warn("the exception claims " + std::to_string(parameters) + " parameters; at most " +
         std::to_string(md::Exception::MaxParameters) + " read");
    parameters = md::Exception::MaxParameters;
  }
  for (uint32_t i = 0; i < parameters; ++i)
    crash.parameters.push_back(exception.ExceptionRecord.ExceptionInformation[i]);
  out_.crash = crash;
  // The exception's context is the thread's state at the crash (the thread
  // list's is where the handler was writing the dump).
  auto thread = std::find_if(out_.threads.begin(), out_.threads.end(),
                             [&](const SnapshotThread& t) { return t.id == crash.thread_id; });
  if (thread == out_.threads.end()) {
    warn("the exception names thread " + std::to_string(crash.thread_id) +
         ", which the thread list does not hold");
    return;
  }
  if (exception.ThreadContext.DataSize == 0)
    return;
  if (std::optional<DecodedContext> decoded = context(
          exception.ThreadContext, "the exception of thread " + std::to_string(crash.thread_id))) {
    if (decoded->cpu == out_.cpu)
      thread->registers = std::move(decoded->registers);
    else
      warn(std::string("the exception's context is for ") + cpuName(decoded->cpu) +
           "; the thread's own kept");
  }
}

void Reader::readModules() {
  const MinidumpStream* stream = directory_.first(kModuleList);
  if (!stream)
    return;
  uint64_t first = 0;
  uint64_t count =
      listEntries(*stream, sizeof(md::Module), limits::kMaxMinidumpModules, "module list", first);
  size_t unnamed = 0;
  for (uint64_t i = 0; i < count; ++i) {
    md::Module module;
    std::memcpy(static_cast<void*>(&module), stream->bytes.data() + first + i * sizeof(md::Module),
                sizeof module);
    SnapshotModule out;
    out.base = module.BaseOfImage;
    out.size = module.SizeOfImage;
    if (out.base + out.size < out.base) {
      warn("a module at 0x" + llvm::utohexstr(out.base) +
           " wraps around the address space; left out");
      continue;
    }
    if (auto name = bytes_.string(module.ModuleNameRVA))
      out.code_file = *name;
    else
      ++unnamed;
    std::optional<llvm::StringRef> record;
    if (module.CvRecord.DataSize > limits::kMaxCodeViewRecordBytes)
      warn(out.code_file + ": " +
           limits::overLimit("its CodeView record", limits::kMaxCodeViewRecordBytes, "bytes"));
    else
      record = bytes_.at(module.CvRecord.RVA, module.CvRecord.DataSize);
    ModuleIdentity identity = identityFromCodeView(record.value_or(""), out.code_file);
    out.debug_id = identity.debug_id;
    out.debug_file = identity.debug_file;
    out.build_id = identity.build_id;
    if (!out.build_id.empty()) {
      out.code_id = out.build_id;
    } else {
      out.code_id = peCodeId(module.TimeDateStamp, module.SizeOfImage);
    }
    out.version =
        fixedFileVersion(module.VersionInfo.Signature, module.VersionInfo.StructVersion,
                         module.VersionInfo.FileVersionHigh, module.VersionInfo.FileVersionLow);
    if (out_.modules.empty())
      out_.main_module_base = out.base;
    out_.modules.push_back(std::move(out));
  }
  if (unnamed)
    warn(plural(unnamed, "module's name", "modules' names") + " cannot be read");
  std::stable_sort(
      out_.modules.begin(), out_.modules.end(),
      [](const SnapshotModule& a, const SnapshotModule& b) { return a.base < b.base; });
}

void Reader::readUnloadedModules() {
  const MinidumpStream* stream = directory_.first(kUnloadedModuleList);
  if (!stream)
    return;
  if (stream->bytes.size() < 12) {
    warn("the UnloadedModuleList stream is too short for its header; left out");
    return;
  }
  uint32_t header_size = read32le(stream->bytes.data());
  uint32_t entry_size = read32le(stream->bytes.data() + 4);
  uint64_t count = read32le(stream->bytes.data() + 8);
  if (header_size < 12 || entry_size < 24 || header_size > stream->bytes.size()) {
    warn("the UnloadedModuleList header is damaged; left out");
    return;
  }
  uint64_t held = (stream->bytes.size() - header_size) / entry_size;
  count = std::min({count, held, limits::kMaxMinidumpModules});
  for (uint64_t i = 0; i < count; ++i) {
    const char* entry = stream->bytes.data() + header_size + i * entry_size;
    SnapshotModule out;
    out.base = read64le(entry);
    out.size = read32le(entry + 8);
    if (auto name = bytes_.string(read32le(entry + 20)))
      out.code_file = *name;
    out.code_id = peCodeId(read32le(entry + 16), read32le(entry + 8));
    out_.unloaded_modules.push_back(std::move(out));
  }
}

void Reader::readMemory() {
  for (const MinidumpStream* stream : directory_.all(kMemoryList)) {
    uint64_t first = 0;
    uint64_t count = listEntries(*stream, sizeof(md::MemoryDescriptor),
                                 limits::kMaxMinidumpMemoryRanges, "memory list", first);
    size_t outside = 0;
    for (uint64_t i = 0; i < count; ++i) {
      md::MemoryDescriptor range;
      std::memcpy(static_cast<void*>(&range),
                  stream->bytes.data() + first + i * sizeof(md::MemoryDescriptor), sizeof range);
      uint64_t start = range.StartOfMemoryRange, size = range.Memory.DataSize;
      auto data = bytes_.at(range.Memory.RVA, size);
      if (!data || size == 0 || start + size < start) {
        outside += size != 0;
        continue;
      }
      out_.memory.add({start, size, size, reinterpret_cast<const uint8_t*>(data->data())});
    }
    if (outside)
      warn(plural(outside, "memory range", "memory ranges") +
           " of the MemoryList run past the file or wrap around; left out");
  }
  if (const MinidumpStream* stream = directory_.first(kMemory64List)) {
    if (stream->bytes.size() < 16) {
      warn("the Memory64List stream is too short for its header; left out");
    } else {
      uint64_t count = read64le(stream->bytes.data());
      uint64_t rva = read64le(stream->bytes.data() + 8);
      uint64_t held = (stream->bytes.size() - 16) / 16;
      if (count > held) {
        warn("the Memory64List claims " + std::to_string(count) + " ranges but holds " +
             std::to_string(held) + "; those read");
        count = held;
      }
      if (count > limits::kMaxMinidumpMemoryRanges) {
        warn(limits::overLimit("the Memory64List's range count", limits::kMaxMinidumpMemoryRanges,
                               "ranges"));
        count = limits::kMaxMinidumpMemoryRanges;
      }
      bool short_file = false;
      for (uint64_t i = 0; i < count; ++i) {
        uint64_t start = read64le(stream->bytes.data() + 16 + i * 16);
        uint64_t size = read64le(stream->bytes.data() + 24 + i * 16);
        if (start + size < start || rva > bytes_.size()) {
          short_file = true;
          break;
        }
        uint64_t held_bytes = std::min<uint64_t>(size, bytes_.size() - rva);
        short_file |= held_bytes < size;
        if (size > 0)
          out_.memory.add({start, size, held_bytes,
                           reinterpret_cast<const uint8_t*>(bytes_.at(rva, held_bytes)->data())});
        if (size > bytes_.size() - rva) {
          short_file = true;
          break;
        }
        rva += size;
      }
      if (short_file)
        warn("the Memory64List's data runs past the end of the file: the rest left out");
    }
  }
  out_.memory.finish(out_.warnings);
}

void Reader::readMiscInfo() {
  const MinidumpStream* stream = directory_.first(kMiscInfo);
  if (!stream)
    return;
  // MINIDUMP_MISC_INFO: SizeOfInfo, Flags1, ProcessId, ProcessCreateTime,
  // ProcessUserTime, ProcessKernelTime (later versions add more).
  if (stream->bytes.size() < 24) {
    warn("the MiscInfo stream is too short; left out");
    return;
  }
  uint32_t flags = read32le(stream->bytes.data() + 4);
  if (flags & 1)
    out_.pid = read32le(stream->bytes.data() + 8);
  if (flags & 2)
    out_.process_create_time = read32le(stream->bytes.data() + 12);
}

void Reader::readBreakpadInfo() {
  const MinidumpStream* stream = directory_.first(kBreakpadInfo);
  if (!stream)
    return;
  if (stream->bytes.size() < 12) {
    warn("the BreakpadInfo stream is too short; left out");
    return;
  }
  uint32_t validity = read32le(stream->bytes.data());
  if (validity & 1)
    out_.dump_thread_id = read32le(stream->bytes.data() + 4);
  if (validity & 2)
    out_.requesting_thread_id = read32le(stream->bytes.data() + 8);
}

void Reader::readAssertion() {
  const MinidumpStream* stream = directory_.first(kAssertionInfo);
  if (!stream)
    return;
  // Three 128-character UTF-16 strings (expression, function, file), then
  // the line and the type.
  if (stream->bytes.size() < 3 * 256 + 8) {
    warn("the AssertionInfo stream is too short; left out");
    return;
  }
  auto text = [&](size_t at) {
    std::vector<llvm::UTF16> units;
    for (size_t i = 0; i < 128; ++i) {
      uint16_t unit = llvm::support::endian::read16le(stream->bytes.data() + at + 2 * i);
      if (unit == 0)
        break;
      units.push_back(unit);
    }
    std::string out;
    if (!llvm::convertUTF16ToUTF8String(llvm::ArrayRef<llvm::UTF16>(units), out))
      out.clear();
    return out;
  };
  SnapshotAssertion assertion;
  assertion.expression = text(0);
  assertion.function = text(256);
  assertion.file = text(512);
  assertion.line = read32le(stream->bytes.data() + 768);
  assertion.type = read32le(stream->bytes.data() + 772);
  out_.assertion = assertion;
}

void Reader::readLinuxStreams() {
  static const std::pair<uint32_t, const char*> kTextStreams[] = {
      {kLinuxCpuInfo, "cpuinfo"}, {kLinuxProcStatus, "status"}, {kLinuxLsbRelease, "lsb_release"},
      {kLinuxCmdLine, "cmdline"}, {kLinuxEnviron, "environ"},   {kLinuxAuxv, "auxv"},
      {kLinuxMaps, "maps"},       {kLinuxDsoDebug, "dso_debug"}};
  for (const auto& [type, name] : kTextStreams) {
    const MinidumpStream* stream = directory_.first(type);
    if (!stream)
      continue;
    if (stream->bytes.size() > limits::kMaxMinidumpTextStream) {
      warn(std::string("the Linux ") + name + " stream: " +
           limits::overLimit("its size", limits::kMaxMinidumpTextStream, "bytes") + "; left out");
      continue;
    }
    out_.linux_streams[name] = stream->bytes.str();
  }
  if (auto maps = out_.linux_streams.find("maps"); maps != out_.linux_streams.end())
    out_.mappings = parseLinuxMaps(maps->second);
  else if (const MinidumpStream* stream = directory_.first(kMemoryInfoList))
    out_.mappings = memoryInfoMappings(stream->bytes, out_.warnings);
}

// lldb writes a module's size as its first segment's; the maps say where
// the rest of the file is mapped.
void Reader::fixModuleExtents() {
  if (out_.mappings.empty())
    return;
  size_t widened = 0;
  for (size_t i = 0; i < out_.modules.size(); ++i) {
    SnapshotModule& module = out_.modules[i];
    if (module.code_file.empty())
      continue;
    uint64_t next = i + 1 < out_.modules.size() ? out_.modules[i + 1].base : UINT64_MAX;
    uint64_t end = module.end();
    // The maps name the file by the path the kernel resolved (a library
    // loaded through a symlink has its target's): the mapping at the
    // module's base says which.
    std::string path = module.code_file;
    for (const MemoryMapping& mapping : out_.mappings)
      if (mapping.start == module.base && !mapping.path.empty())
        path = mapping.path;
    for (const MemoryMapping& mapping : out_.mappings)
      if (mapping.path == path && mapping.start >= module.base && mapping.start < next)
        end = std::max(end, mapping.end);
    if (end > module.end()) {
      module.mapped_size = end - module.base;
      ++widened;
    }
  }
  if (widened)
    warn(plural(widened, "module's size covers", "modules' sizes cover") +
         " less than the file's mappings (lldb writes the first segment's): frames in "
         "the rest are placed by the ranges LinuxMaps gives");
}

llvm::Expected<ProcessSnapshot> parse(std::shared_ptr<llvm::MemoryBuffer> buffer,
                                      const std::string& path) {
  ProcessSnapshot out;
  out.path = path;
  out.format = "minidump";
  MinidumpBytes bytes(buffer->getBuffer());
  auto directory = readStreamDirectory(bytes, path, out.warnings);
  if (!directory)
    return directory.takeError();
  out.dump_time = directory->time_date_stamp;
  Reader reader(bytes, *directory, out);
  reader.readSystemInfo();
  if (llvm::Error error = reader.readThreads())
    return error;
  reader.readThreadNames();
  reader.readException();
  reader.readModules();
  reader.readUnloadedModules();
  reader.readMemory();
  reader.readMiscInfo();
  reader.readBreakpadInfo();
  reader.readAssertion();
  reader.readLinuxStreams();
  reader.fixModuleExtents();
  if (out.cpu == SnapshotCpu::Unknown)
    out.warnings.push_back("neither SystemInfo nor any thread context says which CPU this is");
  out.owner = std::move(buffer);
  return out;
}

} // namespace

llvm::Expected<ProcessSnapshot> readMinidumpSnapshot(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fileError(path, "cannot read it: " + buffer.getError().message());
  return parse(std::shared_ptr<llvm::MemoryBuffer>(std::move(*buffer)), path);
}

llvm::Expected<ProcessSnapshot> parseMinidumpSnapshot(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                                      const std::string& path) {
  return parse(std::shared_ptr<llvm::MemoryBuffer>(std::move(buffer)), path);
}

} // namespace dumpsyms
